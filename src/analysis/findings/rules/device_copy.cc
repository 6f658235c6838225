// device-copy: GPU work that only moves or converts data - casts, layout changes, clones,
// concatenations, device-to-device copies - grouped by the op and the Python line that launched
// it. Priced by replaying the run without that work: its GPU time, its dispatch gaps and launch
// latency, and the host time of the ops that launched it are gone, so a copy hidden behind other
// work saves nothing.

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/common/call_names.h"
#include "analysis/common/data_movement.h"
#include "analysis/common/name_memo.h"
#include "analysis/findings/rules/host_op_removal.h"
#include "analysis/findings/rules/rule_checks.h"
#include "analysis/work/work_models.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace device_copy_rule {
namespace {

// At most this many places get a finding of their own; smaller ones share one.
constexpr size_t kMaxPlaces = 5;

// The framework op a GPU op's launch belongs to: the outermost of the movement ops around the
// launch (aten::to over _to_copy over copy_), and the innermost, whose arguments say the bytes.
struct Launcher {
  Movement kind = Movement::kNone;
  RowId outer = kNoRow, inner = kNoRow;
  bool framework = false;  // an aten op launched it (its verdict is the op's, not the name's)
};

Launcher LauncherOf(const Trace& t, RowId launch) {
  Launcher l;
  if (launch == kNoRow) return l;
  RowId r = OpAround(t, t.api.enclosing_op[launch]);
  if (r == kNoRow || !t.str(t.cpu.name[r]).starts_with("aten::")) return l;
  l.framework = true;
  if (MovementOfOp(t.str(t.cpu.name[r])) == Movement::kNone) return l;
  l.inner = l.outer = r;
  for (RowId p = t.cpu.parent[r]; p != kNoRow && t.cpu.kind[p] == model::CpuRangeKind::kOp &&
                                  MovementOfOp(t.str(t.cpu.name[p])) != Movement::kNone;
       p = t.cpu.parent[p])
    l.outer = p;
  l.kind = MovementOfOp(t.str(t.cpu.name[l.outer]));
  return l;
}

// One place: the work one op (or kernel, without ops) launched from one Python line.
struct Place {
  Movement kind = Movement::kNone;
  std::string op;  // the outermost movement op ("aten::to"), or "" without ops
  std::string python;
  int64_t gpu_ns = 0;
  size_t ops = 0;                               // GPU ops (kernels and copies)
  double bytes = 0;                             // where the shapes or the copy's size say them
  size_t sized = 0, calls = 0;                  // launching calls whose bytes are known, of all
  std::map<std::string_view, int64_t> kernels;  // name -> GPU time
  std::vector<size_t> kernel_rows, memop_rows;
  std::vector<RowId> host_ops;  // the launching ops (their host time goes with them)
  std::vector<RowId> launches;  // launch calls without an op around them
};

// The bytes one launching op moves, from its recorded shapes (the innermost movement op with a
// work model: copy_ reads its source and writes its destination); 0 when not recorded.
double BytesOf(const Trace& t, const Launcher& l, OpWorkCache& work) {
  for (RowId r = l.inner; r != kNoRow; r = t.cpu.parent[r]) {
    if (t.cpu.args[r] != 0) {
      const WorkEstimate& e = work.Of(r);
      if (e.ok) return e.work.bytes;
    }
    if (r == l.outer) break;
  }
  return 0;
}

std::string_view AdviceOf(Movement m) {
  switch (m) {
    case Movement::kCast:
      return "Keep one dtype through the model: cast the weights once at load "
             "(model.to(dtype)), run under torch.autocast instead of .to() / .float() around "
             "each op, or let torch.compile fuse the casts into their neighbours.";
    case Movement::kLayout:
      return "Keep one memory layout: convert the model and its input to channels_last once "
             "(model.to(memory_format=torch.channels_last)) instead of .contiguous() after each "
             "permute or transpose; MIOpen's batched_transpose and cuDNN's nchwToNhwc kernels "
             "mean NCHW convolutions that want NHWC.";
    case Movement::kConcat:
      return "Preallocate the buffer once and write into it (a static KV cache filled with "
             "index_copy_ or slice assignment, torch.cat(..., out=buf)) instead of rebuilding it "
             "with torch.cat every step.";
    case Movement::kClone:
      return "Drop the clones the program does not need: work in place or on views, or write "
             "into a preallocated output with out=.";
    case Movement::kCopy:
    case Movement::kNone:
      break;
  }
  return "Avoid the copy: use views (reshape of a contiguous tensor, slicing) instead of copies, "
         "pass out= to the op that produces the data, and let torch.compile remove the copies "
         "between fused ops.";
}

void Emit(const Context& c, Claims& claims, const std::vector<const Place*>& group,
          std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const Place& top = *group.front();
  Candidate cand{Make(c, "device-copy", 0), {}};
  Finding& f = cand.finding;
  Place sum;
  for (const Place* p : group) {
    sum.gpu_ns += p->gpu_ns, sum.ops += p->ops, sum.bytes += p->bytes;
    sum.sized += p->sized, sum.calls += p->calls;
    for (auto [k, ns] : p->kernels) sum.kernels[k] += ns;
    for (size_t k : p->kernel_rows) {
      claims.TakeKernel(k);
      cand.fix.kernels_removed.push_back(k);
    }
    for (size_t m : p->memop_rows) {
      claims.TakeMemop(m);
      cand.fix.memops_removed.push_back(m);
    }
    for (RowId r : p->launches) {
      cand.fix.api_dur.emplace_back(r, 0);
      claims.Explain(t.api.start_ns[r], t.api.end_ns(r));
    }
    RemoveHostOps(t, p->host_ops, cand.fix, claims);
  }
  f.where.op = top.op;
  f.where.python = top.python;
  if (!top.kernels.empty()) {
    f.where.kernel =
        std::string(std::max_element(top.kernels.begin(), top.kernels.end(), [](auto& a, auto& b) {
                      return a.second < b.second;
                    })->first);
  }
  std::string what = group.size() > 1
                         ? "data movement from " + base::FormatCount(group.size()) + " places"
                     : top.kind == Movement::kCopy ? std::string("copies")
                                                   : std::string(MovementName(top.kind)) + "s";
  f.detail = base::FormatCount(sum.ops) + " " + what + " on the GPU (" +
             c.PerIterationText(static_cast<double>(sum.ops)) + "), " +
             base::FormatDuration(sum.gpu_ns) + ", " +
             base::FormatFixed(c.BusyPercent(sum.gpu_ns), 1) + "% of the GPU's busy time";
  if (sum.sized > 0 && sum.bytes > 0) {
    f.detail += "; " + base::FormatBytes(static_cast<int64_t>(sum.bytes)) + " moved";
    if (sum.sized == sum.calls && sum.gpu_ns > 0)
      f.detail +=
          " at " + base::FormatFixed(sum.bytes / static_cast<double>(sum.gpu_ns), 1) + " GB/s";
    else
      f.detail += " by the " + base::FormatCount(sum.sized) + " of " +
                  base::FormatCount(sum.calls) + " calls whose shapes or sizes are recorded";
  }
  // A framework program gets the advice for its kind of movement (plain CUDA/HIP programs the
  // rule's runtime advice, which Make chose).
  if (group.size() == 1 && c.ecosystem().framework) f.advice = std::string(AdviceOf(top.kind));
  cand.fix.what = "the data movement does not run: no GPU time, no launch, no host op";
  // The longest instances as evidence.
  std::vector<std::pair<int64_t, std::pair<int64_t, std::string_view>>> ev;
  for (const Place* p : group) {
    for (size_t k : p->kernel_rows)
      ev.push_back({t.kernels.dur_ns[k], {t.kernels.start_ns[k], t.str(t.kernels.name[k])}});
    for (size_t m : p->memop_rows)
      ev.push_back({t.memops.dur_ns[m], {t.memops.start_ns[m], t.str(t.memops.name[m])}});
  }
  size_t keep = std::min(ev.size(), c.o().evidence);
  std::partial_sort(ev.begin(), ev.begin() + static_cast<long>(keep), ev.end(),
                    [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < keep; ++i)
    AddEvidence(c, f, ev[i].second.first, ev[i].first, std::string(ev[i].second.second));
  out.push_back(std::move(cand));
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  std::map<std::tuple<model::StringId, std::string, model::StringId>, Place> places;
  std::vector<uint8_t> counted_op;  // launching ops whose bytes are counted (once per op)
  OpWorkCache work(t);
  // The place of a GPU op launched by `launch`; `size` is the op's own size (a copy's bytes), for
  // a launch whose op recorded no shapes.
  auto add = [&](RowId launch, const Launcher& l, model::StringId gpu_name,
                 const std::string& python, double size, int64_t ns) -> Place& {
    model::StringId op = l.outer == kNoRow ? 0 : t.cpu.name[l.outer];
    Place& p = places[{op, python, op == 0 ? gpu_name : 0}];
    if (p.ops == 0) {
      p.op = op == 0 ? std::string() : std::string(t.str(op));
      p.python = python;
    }
    ++p.ops;
    p.gpu_ns += ns;
    p.kernels[t.str(gpu_name)] += ns;
    bool first_of_call = true;
    if (l.outer != kNoRow) {
      if (counted_op.empty()) counted_op.assign(t.cpu.size(), 0);
      first_of_call = !counted_op[l.outer];
      counted_op[l.outer] = 1;
      if (first_of_call) p.host_ops.push_back(l.outer);
    } else if (launch != kNoRow && !IsGraphLaunchApi(t.str(t.api.name[launch]))) {
      p.launches.push_back(launch);
    }
    if (first_of_call) {
      ++p.calls;
      double b = l.outer != kNoRow ? BytesOf(t, l, work) : 0;
      if (b <= 0) b = size;
      if (b > 0) p.bytes += b, ++p.sized;
    }
    return p;
  };
  NameMemo movement_of(t, MovementOfKernel);  // once per distinct kernel name
  // A kernel's or copy's user frame (Attributor::Kernel's or Memop's python), named once per
  // call site.
  std::map<Attributor::SiteIds, std::string> site_python;
  auto python_of_site = [&](const Attributor::SiteIds& site) -> const std::string& {
    auto it = site_python.find(site);
    if (it == site_python.end())
      it = site_python.emplace(site, c.at().SiteWhere(site).python).first;
    return it->second;
  };
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    if (!c.GpuIn(t.kernels.start_ns[k], t.kernels.launch[k]) || claims.KernelTaken(k) ||
        (t.kernels.flags[k] & (model::kKernelIsCopy | model::kKernelIsFill)))
      continue;
    Launcher l = LauncherOf(t, t.kernels.launch[k]);
    if (!l.framework) l.kind = movement_of(t.kernels.name[k]);
    if (l.kind == Movement::kNone) continue;
    Place& p = add(t.kernels.launch[k], l, t.kernels.name[k], python_of_site(c.at().KernelSite(k)),
                   0, t.kernels.dur_ns[k]);
    p.kind = l.kind;
    p.kernel_rows.push_back(k);
  }
  const auto& mo = t.memops;
  for (size_t m : c.WindowCopies()) {
    if (mo.kind[m] != model::MemopKind::kDtoD || claims.MemopTaken(m)) continue;
    Launcher l = LauncherOf(t, mo.launch[m]);
    // Attributor::Memop's frame: its launch call's site's (by ids, named once per site).
    Place& p = add(mo.launch[m], l, mo.name[m], python_of_site(c.at().ApiSite(mo.launch[m])),
                   static_cast<double>(std::max<int64_t>(0, mo.bytes[m])), mo.dur_ns[m]);
    if (p.kind == Movement::kNone) p.kind = l.kind == Movement::kNone ? Movement::kCopy : l.kind;
    p.memop_rows.push_back(m);
  }
  // A place is reported when its GPU time reaches the share of the GPU's busy time; the largest
  // get a finding each, the rest one together when their sum reaches it.
  const double floor = c.o().device_copy_share / 100.0 * static_cast<double>(c.busy_ns());
  std::vector<const Place*> sorted;
  for (const auto& [key, p] : places) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const Place* a, const Place* b) {
    return a->gpu_ns != b->gpu_ns ? a->gpu_ns > b->gpu_ns : a->op + a->python < b->op + b->python;
  });
  std::vector<const Place*> rest;
  int64_t rest_ns = 0;
  size_t own = 0;
  for (const Place* p : sorted) {
    if (p->gpu_ns <= 0) continue;
    if (own < kMaxPlaces && static_cast<double>(p->gpu_ns) >= floor) {
      Emit(c, claims, {p}, out);
      ++own;
    } else {
      rest.push_back(p);
      rest_ns += p->gpu_ns;
    }
  }
  if (!rest.empty() && static_cast<double>(rest_ns) >= floor) Emit(c, claims, rest, out);
}

}  // namespace
}  // namespace device_copy_rule

const RuleInfo& DeviceCopyRule() {
  static const RuleInfo rule{
      .id = "device-copy",
      .title = "GPU time spent only moving or converting data",
      .definition =
          "Kernels and device-to-device copies in the steady window that only move or convert "
          "data, grouped by the op and the Python line that launched them: work launched by "
          "aten::copy_, _to_copy / to (casts), contiguous / reshape (layout changes), cat / stack, "
          "clone / repeat - named by the outermost of them (aten::to over _to_copy over copy_) - "
          "and, without a framework op, kernels named as copies (direct_copy_kernel, "
          "*_copy_kernel_cuda, CatArrayBatchedCopy, MIOpen's batched_transpose and CastTensor, "
          "cuDNN's nchwToNhwc, Triton kernels fused only from movement ops). A place is reported "
          "when its GPU time reaches --copy-share percent of the GPU's busy time; the five largest "
          "get a finding each, the others one together when their sum does. Bytes moved come from "
          "the recorded shapes (or the copy's size) and give the achieved bandwidth.",
      .impact =
          "replayed: the movement does not run - its kernels and copies take no GPU time and leave "
          "no dispatch gap, their launches and the ops that launched them take no host time (each "
          "op at most the place's median op: a first call's one-time set-up stays) - so a copy "
          "hidden behind other work saves nothing.",
      .advice =
          "Avoid the copy: keep one dtype and one layout through the model (cast weights once, "
          "torch.autocast, channels_last once), use views instead of .contiguous() / clone, "
          "preallocate growing buffers (a static KV cache) instead of torch.cat every step, and "
          "let torch.compile fuse the casts and copies that remain.",
      .options = {{"--copy-share",
                   "GPU time of a place that is reported (% of the GPU's busy time)", 1,
                   [](AnalyzeOptions& o, double v) { o.device_copy_share = v; }}},
      .detect = &device_copy_rule::Detect,
      .runtime_advice =
          "Move data once: fuse the conversion or transpose into the kernel that produces or "
          "consumes it, keep one layout and precision across kernels, and let kernels read a "
          "buffer in place instead of a cudaMemcpy device-to-device copy of it.",
      .limits =
          "copies host<->device (the memcpy rules); fills and memsets; copies a runtime does with "
          "kernels; movement fused into a kernel that also computes (a Triton kernel fused with an "
          "addmm, a norm that writes bf16); places below --copy-share; it cannot tell a copy the "
          "program needs (the input's one cast per step) from one it does not - the saving is what "
          "removing it would save, the advice says how."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
