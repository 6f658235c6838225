// small-grid: kernels holding a real share of the window launched with fewer blocks than the
// device has SMs / CUs, so that part of the GPU sits idle while they run.

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/common/intervals.h"
#include "analysis/findings/rules/rule_checks.h"
#include "analysis/roofline/roofline.h"
#include "analysis/work/kernel_categories.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace small_grid_rule {
namespace {

// Findings listed at most (the kernels with the largest savings).
constexpr size_t kMaxFindings = 5;
// An instance with kernels of other streams beside it for this share of its time or more.
constexpr double kBesideShare = 0.5;

// A kernel's grid in blocks. Dispatch records of the HSA level (rocprofv3, rocpd) and HIP's
// hipExtModuleLaunchKernel / hipHccModuleLaunchKernel (hipBLASLt and Tensile GEMMs in a Kineto
// trace) give the grid in work-items: divided by the block, rounding up. Other sources give
// blocks. 0: the trace does not say.
uint64_t GridBlocks(const Trace& t, size_t k, bool work_items_format) {
  const model::Dim3& g = t.kernels.grid[k];
  const model::Dim3& b = t.kernels.block[k];
  bool work_items = work_items_format;
  if (model::RowId call = t.kernels.launch[k]; !work_items && call < t.api.size()) {
    std::string_view api = t.str(t.api.name[call]);
    work_items = api.find("hipExtModuleLaunchKernel") != std::string_view::npos ||
                 api.find("hipHccModuleLaunchKernel") != std::string_view::npos;
  }
  uint64_t blocks = 1;
  for (int i = 0; i < 3; ++i) {
    uint64_t n = g[i];
    if (work_items && b[i] > 0) n = (n + b[i] - 1) / b[i];
    blocks *= n;
  }
  return blocks;
}

std::string DimText(const model::Dim3& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

// Kernels on other streams of each device, merged: what runs beside a kernel (DeepSeek's 20-SM
// communication kernels run beside 112-block GEMMs on 132 SMs: the GEMM's spare SMs are busy).
class Beside {
 public:
  explicit Beside(const Trace& t) : t_(t) {}
  // The share of kernel k's time during which a kernel of another stream of its device ran.
  double Share(size_t k) {
    const auto key = std::make_pair(t_.kernels.device[k], t_.kernels.track[k]);
    auto it = others_.find(key);
    if (it == others_.end()) {
      std::vector<Interval> v;
      for (size_t i = 0; i < t_.kernels.size(); ++i)
        if (t_.kernels.device[i] == key.first && t_.kernels.track[i] != key.second)
          v.emplace_back(t_.kernels.start_ns[i], t_.kernels.end_ns(i));
      MergeIntervals(v);
      it = others_.emplace(key, std::move(v)).first;
    }
    const int64_t dur = t_.kernels.dur_ns[k];
    if (dur <= 0) return 0;
    return static_cast<double>(
               CoveredWithin(it->second, t_.kernels.start_ns[k], t_.kernels.end_ns(k))) /
           static_cast<double>(dur);
  }

 private:
  const Trace& t_;
  std::map<std::pair<int16_t, model::TrackId>, std::vector<Interval>> others_;
};

struct Group {
  std::vector<size_t> kernels;
  int64_t ns = 0, saving = 0;
};

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  // SMs / CUs per device id, as the trace records them; a device without the count is skipped.
  std::map<int, const model::Device*> devices;
  for (const model::Device& d : t.devices)
    if (d.compute_units > 0) devices[d.id] = &d;
  if (devices.empty()) return;
  const bool work_items = t.meta.format.starts_with("rocprofv3") || t.meta.format == "rocpd";
  // Collectives (NCCL channels, DeepEP's dispatch and combine) take few SMs on purpose, leaving
  // the rest to the compute that overlaps them: never flagged.
  const std::vector<KernelCategory> category =
      CategorizeKernels(t, c.o().categories ? *c.o().categories : *BuiltInCategoryRules());
  // Per (name, grid, block, device): the window's instances whose grid leaves SMs idle.
  std::map<std::tuple<model::StringId, model::Dim3, model::Dim3, int>, Group> groups;
  Beside beside(t);
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    auto dev = devices.find(t.kernels.device[k]);
    if (dev == devices.end() || claims.KernelTaken(k) ||
        category[k] == KernelCategory::kCommunication ||
        !c.GpuIn(t.kernels.start_ns[k], t.kernels.launch[k]))
      continue;
    const uint64_t blocks = GridBlocks(t, k, work_items);
    const auto sms = static_cast<uint64_t>(dev->second->compute_units);
    if (blocks == 0 || blocks >= sms) continue;
    // Work of other streams beside it most of its time takes the units its grid leaves.
    if (beside.Share(k) >= kBesideShare) continue;
    Group& g =
        groups[{t.kernels.name[k], t.kernels.grid[k], t.kernels.block[k], t.kernels.device[k]}];
    g.kernels.push_back(k);
    g.ns += t.kernels.dur_ns[k];
  }
  // The kernel's time times the idle share of the SMs: what spreading the same work over every
  // SM could save at most (never below a kernel's fixed cost, never more than its time).
  std::vector<std::pair<int64_t, const decltype(groups)::value_type*>> ranked;
  for (auto& entry : groups) {
    if (c.Percent(entry.second.ns) < 100 * c.o().small_grid_share) continue;
    ranked.emplace_back(entry.second.ns, &entry);
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t n = 0; n < ranked.size() && n < kMaxFindings; ++n) {
    const auto& [key, g] = *ranked[n].second;
    const model::Device& dev = *devices[std::get<3>(key)];
    const auto sms = static_cast<uint64_t>(dev.compute_units);
    const uint64_t blocks = GridBlocks(t, g.kernels.front(), work_items);
    Candidate cand{Make(c, "small-grid", 0), {}};
    int64_t before = 0, after = 0;
    for (size_t k : g.kernels) {
      if (!claims.TakeKernel(k)) continue;
      const int64_t dur = t.kernels.dur_ns[k];
      const auto spread = static_cast<int64_t>(
          static_cast<double>(dur) * static_cast<double>(blocks) / static_cast<double>(sms));
      const int64_t target = std::min(dur, std::max(kKernelFixedCostNs, spread));
      if (target >= dur) continue;
      cand.fix.kernel_dur.emplace_back(k, target);
      before += dur, after += target;
      AddEvidence(c, cand.finding, t.kernels.start_ns[k], dur,
                  std::to_string(blocks) + " blocks on " + std::to_string(sms) + " units");
    }
    if (cand.fix.kernel_dur.empty()) continue;
    const std::string unit = dev.vendor == model::Vendor::kAmd ? "CUs" : "SMs";
    cand.fix.what = "its grid fills the device: the same work spread over every one of the " +
                    std::to_string(sms) + " " + unit;
    Finding& f = cand.finding;
    f.where = c.at().Kernel(cand.fix.kernel_dur.front().first);
    f.where.kernel = base::Demangle(t.str(std::get<0>(key)));
    f.detail = "grid " + DimText(std::get<1>(key)) + " (" + std::to_string(blocks) +
               (blocks == 1 ? " block" : " blocks") + ") of " + DimText(std::get<2>(key)) +
               " threads on GPU " + std::to_string(dev.id) + " with " + std::to_string(sms) + " " +
               unit + ": " + std::to_string(sms - blocks) + " " + unit + " idle while it " +
               "runs; " + base::FormatCount(cand.fix.kernel_dur.size()) + " calls, " +
               base::FormatDuration(before) + " (" + base::FormatFixed(c.Percent(before), 1) +
               "% of the window); spread over the device they would take " +
               base::FormatDuration(after);
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace small_grid_rule

const RuleInfo& SmallGridRule() {
  static const RuleInfo rule{
      .id = "small-grid",
      .title = "Kernels whose grid leaves SMs / CUs idle",
      .definition =
          "Kernels (by name, grid, block and device) in the steady state whose grid has fewer "
          "blocks than the device has SMs (NVIDIA) or CUs (AMD), holding at least the threshold "
          "share of the window: while one runs, the units without a block do nothing. The count "
          "of units is the trace's (Kineto deviceProperties numSms, nsys TARGET_INFO_GPU, the "
          "ROCm agent's CU count). The 5 with the most time.",
      .impact =
          "replayed: each instance takes its time x blocks / units (its work spread over every "
          "unit), at least 2 us (a kernel's fixed cost) and never longer than it took; the saving "
          "is at most the kernel's time x the idle share of units.",
      .advice =
          "Give the kernel more blocks: split the work along another dimension (split-K for a "
          "GEMM, more heads or sequence blocks for attention, a smaller tile), batch several "
          "small launches into one (grouped GEMM, torch.compile), or run independent work "
          "beside it on another stream.",
      .options = {{"--small-grid-percent", "small-grid: share of the window a kernel holds", 1,
                   [](AnalyzeOptions& o, double v) { o.small_grid_share = v / 100; }}},
      .detect = &small_grid_rule::Detect,
      .runtime_advice =
          "Launch more blocks than the device has SMs / CUs: split the work along another "
          "dimension or use a smaller tile; run independent kernels on other streams.",
      .limits =
          "collectives (the communication category: NCCL/RCCL channels and DeepEP kernels take "
          "few SMs on purpose, leaving the rest to compute); instances with kernels of other "
          "streams of their device running beside them half their time or more (those take the "
          "units the grid leaves); kernels already at the memory roof (their bytes are not "
          "known here: a skinny GEMM moving its weights at HBM speed gains nothing); traces that "
          "do not record the "
          "device's SM / CU count (rocprofv3 CSV, .rpd, legacy "
          "rocprof, nsys exports without TARGET_INFO_GPU, Kineto without deviceProperties) or "
          "the grid (0: unknown); kernels whose one block per unit would not fit anyway "
          "(occupancy is not modelled: a grid of at least one block per unit is never flagged, "
          "even when several blocks could run on each); the time a kernel spends waiting on "
          "memory, which more blocks may not hide."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
