#include "analysis/timeline/summary.h"

namespace gpuscope::analysis {

TraceSummary Summarize(model::Trace& trace) {
  TraceSummary s;
  auto [lo, hi] = trace.TimeSpan();
  s.first_ns = lo;
  s.last_ns = hi;
  s.clocks = CheckClocks(trace);
  uint64_t ops = 0, annotations = 0;
  for (auto k : trace.cpu.kind) (k == model::CpuRangeKind::kOp ? ops : annotations)++;
  uint64_t gpu_ann = 0, gpu_sync = 0, gpu_other = 0;
  for (auto k : trace.gpu_ranges.kind) {
    if (k == model::GpuRangeKind::kAnnotation)
      ++gpu_ann;
    else if (k == model::GpuRangeKind::kSync)
      ++gpu_sync;
    else
      ++gpu_other;
  }
  uint64_t by_domain[4] = {0, 0, 0, 0};
  for (auto d : trace.api.domain) ++by_domain[static_cast<int>(d) & 3];
  uint64_t memset = 0;
  for (auto k : trace.memops.kind) memset += k == model::MemopKind::kMemset;
  s.counts = {
      {"kernels", trace.kernels.size()},
      {"memcpy", trace.memops.size() - memset},
      {"memset", memset},
      {"runtime API calls", by_domain[static_cast<int>(model::ApiDomain::kRuntime)]},
      {"driver API calls", by_domain[static_cast<int>(model::ApiDomain::kDriver)]},
      {"HSA API calls", by_domain[static_cast<int>(model::ApiDomain::kHsa)]},
      {"OS runtime calls", by_domain[static_cast<int>(model::ApiDomain::kOs)]},
      {"CPU ops", ops},
      {"user annotations", annotations},
      {"Python frames", trace.python.size()},
      {"GPU annotations", gpu_ann},
      {"GPU sync records", gpu_sync},
      {"counter samples", trace.counters.size()},
      {"instant events", trace.instants.size()},
      {"GPU memory events", trace.memory.size()},
  };
  if (gpu_other) s.counts.emplace_back("other GPU ranges", gpu_other);
  for (const auto& t : trace.tracks) {
    if (t.kind == model::TrackKind::kCpuThread) ++s.cpu_threads;
    if (t.kind == model::TrackKind::kGpuStream) ++s.gpu_streams;
  }
  for (auto l : trace.kernels.launch) s.kernels_linked += l != model::kNoRow;
  for (auto l : trace.memops.launch) s.memops_linked += l != model::kNoRow;
  for (auto l : trace.api.enclosing_op) s.api_in_cpu_op += l != model::kNoRow;
  for (auto l : trace.cpu.python_frame) s.cpu_ops_in_python += l != model::kNoRow;
  s.iterations = trace.iterations;
  if (!trace.summary_only()) {
    SteadyState st = FindSteadyState(trace);
    s.step_source = st.source;
    s.steps = st.iterations.size();
    for (const auto& p : st.phases) s.phase_steps.emplace_back(p.name, p.steps.size());
    s.structure = st.structure.text();
    s.health = CheckHealth(trace, st);
    for (const auto& g : FindCapturedGraphs(trace, trace.meta.path)) {
      ++s.graph_captures;
      s.captured_launches += g.launches.size();
    }
    s.graph_launches = CountGraphLaunches(trace);
  }
  s.model_bytes = trace.MemoryBytes();
  return s;
}

}  // namespace gpuscope::analysis
