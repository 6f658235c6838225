// warm-up: one-time set-up inside a window that has no steps to tell it from the steady state.

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/common/call_names.h"
#include "analysis/findings/rules/rule_checks.h"
#include "base/text.h"

namespace gpuscope::analysis::internal {

namespace {

constexpr int64_t kMs = 1'000'000;

// Runtime calls that only set up: the context, modules, streams, library handles.
bool IsSetUpCall(std::string_view n) {
  for (std::string_view s :
       {"ModuleLoad", "LibraryLoad", "StreamCreate", "FuncGetAttributes", "DeviceSetLimit",
        "CtxCreate", "PrimaryCtx", "RegisterFatBinary", "RegisterFunction", "cuInit", "hipInit",
        "cudnnCreate", "cublasCreate", "cublasLtCreate", "miopenCreate", "rocblas_create",
        "hipblasCreate", "hipblasLtCreate"}) {
    if (n.find(s) != std::string_view::npos) return true;
  }
  return false;
}

// Compilation and autotuning ranges (torch.compile, Triton, nvFuser, cuDNN benchmark) - not the
// runs of compiled code ("## Call CompiledFxGraph ##", "Torch-Compiled Region"), which compile
// nothing after their first call.
bool IsCompileRange(std::string_view n) {
  if (IsCompiledRegion(n)) return false;
  std::string lower = base::AsciiLower(n.substr(0, 200));
  for (std::string_view s : {"compile", "autotun", "nvfuser", "codegen", "cudnn_find",
                             "benchmark_conv", "triton_heuristics", "jit_"}) {
    if (lower.find(s) != std::string::npos) return true;
  }
  return false;
}

// The median duration of the window's launch calls (0: none).
int64_t MedianLaunchNs(const Context& c) {
  const Trace& t = c.t();
  std::vector<int64_t> launch_durs;
  for (size_t i = 0; i < t.api.size(); ++i)
    if (c.In(t.api.start_ns[i]) && IsLaunchApi(t.str(t.api.name[i])))
      launch_durs.push_back(t.api.dur_ns[i]);
  if (launch_durs.empty()) return 0;
  auto mid = launch_durs.begin() + static_cast<ptrdiff_t>(launch_durs.size() / 2);
  std::nth_element(launch_durs.begin(), mid, launch_durs.end());
  return *mid;
}

// A Python frame of the compilers: Dynamo's frame conversion, Inductor's compile_fx, Triton's
// autotuner.
bool IsCompilerFrame(std::string_view n) {
  return n.find("torch/_dynamo/convert_frame") != std::string_view::npos ||
         n.find("torch/_inductor/compile_fx") != std::string_view::npos ||
         n.find("autotune") != std::string_view::npos;
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  // Marked steps already leave the warm-up steps out of the steady window.
  const std::string& source = c.steady().source;
  if (source.find("whole trace") == std::string::npos &&
      source.find("span of GPU work") == std::string::npos)
    return;
  const Trace& t = c.t();
  struct Part {
    int64_t ns = 0;
    uint64_t n = 0;
  };
  std::map<std::string, Part> parts;  // what set up, by name
  Candidate cand{Make(c, "warm-up", 0), {}};
  std::vector<std::pair<int64_t, int64_t>> spans;
  // What set up, found first; claimed only when it makes a finding. A set-up call takes no
  // time; a set-up range's host time leaves its thread.
  struct SetUp {
    model::TrackId track;
    int64_t s, e;
    std::string what;
    RowId call;
    size_t first_kernel;  // SIZE_MAX: none
  };
  std::vector<SetUp> found;
  auto take = [&](model::TrackId track, int64_t s, int64_t e, const std::string& what,
                  RowId call = kNoRow, size_t first_kernel = SIZE_MAX) {
    if (call != kNoRow && claims.ApiTaken(call)) return;
    found.push_back({track, s, e, what, call, first_kernel});
    spans.emplace_back(s, e);
  };
  // The median launch call, to tell a first launch that loads its module (lazy loading).
  const int64_t median_launch = MedianLaunchNs(c);
  std::unordered_set<model::StringId> launched;        // kernels whose first launch was seen
  std::unordered_map<RowId, size_t> kernel_of_launch;  // launch call -> its (first) kernel row
  for (size_t k = 0; k < t.kernels.size(); ++k)
    if (t.kernels.launch[k] != kNoRow) kernel_of_launch.emplace(t.kernels.launch[k], k);
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (!c.In(t.api.start_ns[i]) || t.api.domain[i] == model::ApiDomain::kOs) continue;
    std::string_view n = t.str(t.api.name[i]);
    const int64_t d = t.api.dur_ns[i];
    std::string what;
    size_t first_kernel = SIZE_MAX;
    if (IsSetUpCall(n)) {
      what = std::string(n);
    } else if (IsAllocatorApi(n) && d >= kMs) {
      what = std::string(n) + " (first growth)";
    } else if (IsLaunchApi(n)) {
      auto it = kernel_of_launch.find(static_cast<RowId>(i));
      bool first =
          it != kernel_of_launch.end() && launched.insert(t.kernels.name[it->second]).second;
      if (first && d >= kMs && d >= 20 * std::max<int64_t>(1, median_launch)) {
        what = "first launches (module loading)";
        first_kernel = it->second;
      }
    }
    if (what.empty()) continue;
    take(t.api.track[i], t.api.start_ns[i], t.api.end_ns(i), what, static_cast<RowId>(i),
         first_kernel);
  }
  // Python frames of the compilers, outermost only.
  auto compiler_frame = [&](RowId r) { return IsCompilerFrame(t.str(t.python.name[r])); };
  for (size_t i = 0; i < t.python.size(); ++i) {
    if (!c.In(t.python.start_ns[i]) || t.python.dur_ns[i] < kMs ||
        !compiler_frame(static_cast<RowId>(i)))
      continue;
    bool nested = false;
    for (RowId p = t.python.parent[i]; p != kNoRow && !nested; p = t.python.parent[p])
      nested = compiler_frame(p);
    if (!nested)
      take(t.python.track[i], t.python.start_ns[i], t.python.end_ns(i), "compilation / autotuning");
  }
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (!c.In(t.cpu.start_ns[i]) || t.cpu.dur_ns[i] < kMs) continue;
    if (t.cpu.parent[i] != kNoRow && IsCompileRange(t.str(t.cpu.name[t.cpu.parent[i]])))
      continue;  // inside a compile range already counted
    if (IsCompileRange(t.str(t.cpu.name[i])))
      take(t.cpu.track[i], t.cpu.start_ns[i], t.cpu.end_ns(i), "compilation / autotuning");
  }
  // Merged, the set-up time; it must be a visible share of the window to be worth a finding.
  std::sort(spans.begin(), spans.end());
  int64_t total = 0, cur_s = INT64_MIN, cur_e = INT64_MIN;
  for (auto [s, e] : spans) {
    if (s > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = s, cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  if (total < 10 * kMs || c.Percent(total) < 5) return;
  for (const SetUp& u : found) {
    if (u.call != kNoRow) {
      if (!claims.TakeApi(u.call)) continue;
      cand.fix.api_dur.emplace_back(u.call, 0);
      // Loaded before the window, the kernel starts a launch latency after its call.
      if (u.first_kernel != SIZE_MAX) cand.fix.typical_latency.push_back(u.first_kernel);
    } else {
      cand.fix.host_scale.push_back({u.track, u.s, u.e, 0.0});
    }
    claims.Explain(u.s, u.e);
    Part& p = parts[u.what];
    p.ns += u.e - u.s, ++p.n;
  }
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [what, p] : parts) ranked.emplace_back(p.ns, what);
  std::sort(ranked.rbegin(), ranked.rend());
  Finding& f = cand.finding;
  f.detail = base::FormatDuration(total) + " of the window is one-time set-up:";
  for (size_t k = 0; k < ranked.size() && k < 4; ++k) {
    f.detail += (k ? ", " : " ") + ranked[k].second + " " + base::FormatDuration(ranked[k].first) +
                " (x" + base::FormatCount(parts[ranked[k].second].n) + ")";
  }
  f.where.op = ranked.front().second;
  cand.fix.what = "the set-up leaves the profiled window (done before it)";
  std::sort(spans.begin(), spans.end(),
            [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
  for (auto [s, e] : spans) AddEvidence(c, f, s, e - s, "set-up");
  out.push_back(std::move(cand));
}

}  // namespace

const RuleInfo& WarmUpRule() {
  static const RuleInfo rule{
      .id = "warm-up",
      .title = "One-time set-up inside the profiled window",
      .definition =
          "Only on a window without marked steps (a one-pass run: no ProfilerStep#, serving step "
          "or repeated annotation to leave warm-up out): runtime calls that set up (module "
          "loading, stream and context creation, library handles: cudnnCreate, cublasCreate ...), "
          "allocation calls of 1 ms or more (a caching allocator's first growth), first launches "
          "of a kernel 20x the median launch and 1 ms or more (lazy module loading), and "
          "compilation or autotuning ranges of 1 ms or more (torch.compile, Triton, nvFuser), "
          "together at least 10 ms and 5% of the window. Their time is left out of the other rules "
          "(no launch-bound storm of first launches, no idle gap blamed on them).",
      .impact =
          "replayed: the set-up calls and ranges take no time on their threads (done before the "
          "window).",
      .advice =
          "Profile after warm-up: torch.profiler schedule(wait=1, warmup=1, active=3) with "
          "prof.step() per step, or run the model once before profiling; keep compiled kernels in "
          "a cache (TORCHINDUCTOR_CACHE_DIR, Triton's cache); a cold start that matters in "
          "production is its own problem (CUDA_MODULE_LOADING=EAGER loads modules at start-up).",
      .detect = &Detect,
      .runtime_advice =
          "Profile after warm-up: run the work once before the profiled region (cudaProfilerStart "
          "after it, nsys --capture-range=cudaProfilerApi); CUDA_MODULE_LOADING=EAGER loads "
          "modules at start-up.",
      .limits =
          "a window with marked steps (their leading slow steps are left out of the window "
          "instead); set-up under 10 ms or 5% of the window together; the later calls of compiled "
          "code, which compile nothing."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
