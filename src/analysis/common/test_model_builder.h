#pragma once
// Hand-built trace models for the analysis tests: one host thread, one GPU stream, launches
// linked by correlation id (shared by analyze_test.cc and replay_graph_test.cc).

#include <string>

#include "model/linker.h"
#include "model/trace.h"

namespace gpuscope::analysis::test_models {

inline constexpr int64_t us = 1000;
using model::MemopKind;
using model::MemoryKind;

// Builds a linked model by hand: one host thread, one GPU stream, correlation ids given by the
// test (0 = no launch link).
class Builder {
 public:
  Builder() {
    cpu_ = t_.InternTrack(model::TrackKind::kCpuThread, "100", "100");
    gpu_ = t_.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  }
  void Step(int n, int64_t start, int64_t dur) {
    Range("ProfilerStep#" + std::to_string(n), start, dur, model::CpuRangeKind::kAnnotation);
  }
  // An op; `args` is its recorded call arguments as model/op_args.h stores them.
  void Op(const std::string& name, int64_t start, int64_t dur, const std::string& args = "") {
    Range(name, start, dur, model::CpuRangeKind::kOp, args);
  }
  void Annotation(const std::string& name, int64_t start, int64_t dur) {
    Range(name, start, dur, model::CpuRangeKind::kAnnotation);
  }
  void Frame(const std::string& name, int64_t start, int64_t dur) {
    model::PythonFrameRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = cpu_;
    t_.python.Append(r);
  }
  void Api(const std::string& name, int64_t start, int64_t dur, uint64_t corr) {
    model::ApiRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = cpu_,
    r.correlation = corr;
    t_.api.Append(r);
  }
  void Kernel(const std::string& name, int64_t start, int64_t dur, uint64_t corr = 0) {
    model::KernelRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = gpu_,
    r.correlation = corr, r.device = 0;
    t_.kernels.Append(r);
  }
  // A kernel and its launch call (launch ends 1 us before... anything: times given).
  void Launch(const std::string& kernel, int64_t api_start, int64_t api_dur, int64_t k_start,
              int64_t k_dur) {
    ++corr_;
    Api("cudaLaunchKernel", api_start, api_dur, corr_);
    Kernel(kernel, k_start, k_dur, corr_);
  }
  void Copy(MemopKind kind, const std::string& api, int64_t api_start, int64_t api_dur,
            int64_t start, int64_t dur, int64_t bytes, MemoryKind host) {
    ++corr_;
    Api(api, api_start, api_dur, corr_);
    model::MemopRow r;
    r.start_ns = start, r.dur_ns = dur, r.track = gpu_, r.correlation = corr_, r.device = 0,
    r.kind = kind, r.bytes = bytes;
    r.src = kind == MemopKind::kHtoD ? host : MemoryKind::kDevice;
    r.dst = kind == MemopKind::kHtoD ? MemoryKind::kDevice : host;
    r.name = t_.strings.Intern(kind == MemopKind::kHtoD ? "Memcpy HtoD" : "Memcpy DtoH");
    t_.memops.Append(r);
  }
  // The model before linking, for rows the helpers above do not make.
  model::Trace& raw() { return t_; }
  model::TrackId cpu_track() const { return cpu_; }
  model::TrackId gpu_track() const { return gpu_; }
  model::Trace& Link(const model::LinkOptions& options = {}) {
    model::LinkTrace(t_, options);
    return t_;
  }

 private:
  void Range(const std::string& name, int64_t start, int64_t dur, model::CpuRangeKind kind,
             const std::string& args = "") {
    model::CpuRangeRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = cpu_,
    r.kind = kind;
    if (!args.empty()) r.args = t_.strings.Intern(args);
    t_.cpu.Append(r);
  }
  model::Trace t_;
  model::TrackId cpu_, gpu_;
  uint64_t corr_ = 0;
};

// Step s of a model that allocates, from t0 (1000 us long, its Python frame around its ops):
// aten::empty allocates 1 MB at t0 + 12 us (address 1000 + s), aten::mul 4 MB at t0 + 22 us
// (address 77); `alloc(ts, bytes, addr)` records each. What frees them is the test's.
template <typename Alloc>
void AllocatingStep(Builder& b, int s, int64_t t0, Alloc alloc) {
  constexpr int64_t kMiB = 1 << 20;
  b.Step(s, t0, 1000 * us);
  b.Frame("model.py(5): forward", t0 + 5 * us, 900 * us);
  b.Op("aten::empty", t0 + 10 * us, 5 * us);
  alloc(t0 + 12 * us, kMiB, 1000 + static_cast<uint64_t>(s));
  b.Op("aten::mul", t0 + 20 * us, 5 * us);
  alloc(t0 + 22 * us, 4 * kMiB, 77);
}

}  // namespace gpuscope::analysis::test_models
