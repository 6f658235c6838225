#include "analysis/roofline/roofline.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analysis/steps/steady_state.h"
#include "analysis/work/work_models.h"

namespace gpuscope::analysis {
namespace {

// Collectives (NCCL/RCCL, symmetric memory): their time is the interconnect's, not HBM's.
bool IsCommunication(std::string_view name) {
  for (std::string_view k :
       {"nccl", "rccl", "all_reduce", "allreduce", "all_gather", "reduce_scatter", "all_to_all",
        "alltoall", "broadcast_", "c10d::", "record_param_comms"}) {
    if (name.find(k) != std::string_view::npos) return true;
  }
  return false;
}

// Why a kernel under op `name`, which has no work model, is not priced.
std::string NoModelWhy(const std::string& name, std::string_view note = {}) {
  if (IsCommunication(name)) return "communication: bound by the interconnect, not modelled";
  return "no work model for " + name + std::string(note);
}

// What the roofline needs of one call signature (op name + args), computed once.
struct Signature {
  WorkEstimate estimate;
  std::string shape;
  std::string family;
  double ideal_ns = 0, target_ideal_ns = 0;
  bool compute_bound = false;
  size_t op = SIZE_MAX;  // its (op, shape, dtype) row in the report, once known
};

double IdealNs(const OpWork& w, const DevicePeaks& p, bool* compute_bound) {
  double peak = w.matrix ? p.Peak(w.precision) : p.vector_fp32_tflops;
  // A type without matrix units on this device (bf16 on V100, TF32 on AMD) runs at the next
  // rate it has: fp32 matrix, else the vector rate.
  if (peak <= 0) peak = w.matrix && p.fp32 > 0 ? p.fp32 : p.vector_fp32_tflops;
  double compute_ns = peak > 0 ? w.flops / (peak * 1e3) : 0;  // TFLOP/s = 1e3 FLOP/ns
  double memory_ns = p.hbm_tbps > 0 ? w.bytes / (p.hbm_tbps * 1e3) : 0;
  *compute_bound = compute_ns >= memory_ns && w.flops > 0;
  return std::max(compute_ns, memory_ns);
}

// A kernel's modelled op instance: the op and its recorded args (views into the trace's strings,
// or for a graph-replayed kernel into the capture's: `graphs` outlives the build) and its kernels.
struct Call {
  std::string_view name, args;
  std::vector<size_t> kernels;
  int64_t gpu_ns = 0;
};

// Kernel time no work model prices, per op.
struct Miss {
  uint64_t kernels = 0;
  int64_t gpu_ns = 0;
  std::string why;
  std::unordered_set<uint64_t> calls;  // distinct calls (row ids of the kind the caller names)
};

struct ViewPairHash {
  size_t operator()(const std::pair<std::string_view, std::string_view>& v) const {
    return std::hash<std::string_view>()(v.first) * 31 + std::hash<std::string_view>()(v.second);
  }
};

// ComputeRoofline in three passes over one report: kernels to calls (or to why they are not
// modelled), calls to work per (op, shape, dtype), then rates and the report's order.
class RooflineBuilder {
 public:
  RooflineBuilder(const model::Trace& t, const RooflineOptions& o, const GraphAttribution* graphs,
                  RooflineReport& r)
      : t_(t), o_(o), graphs_(graphs), r_(r), k_(t.kernels) {}

  // Pass 1: each kernel of the window to its call (the modelled op instance it belongs to) or
  // to the op whose kernels are not modelled, with why.
  void AssignCalls() {
    const auto& k = k_;
    auto& calls = calls_;
    auto& op_calls = op_calls_;
    auto& graph_calls = graph_calls_;
    const auto& t = t_;
    const auto& o = o_;
    const auto* graphs = graphs_;
    auto& r = r_;
    auto charge = [&](size_t call, size_t i) {
      calls[call].kernels.push_back(i), calls[call].gpu_ns += k.dur_ns[i];
    };
    auto miss = [&](std::string_view op, auto why, uint64_t call, size_t i) {
      AddMiss(op, why, call, i);
    };
    for (size_t i = 0; i < k.size(); ++i) {
      model::RowId l = k.launch[i];
      int64_t launched = LaunchedAt(t, l, k.start_ns[i]);
      if (launched < o.window_start || launched >= o.window_end) continue;
      r.kernel_ns += k.dur_ns[i];
      if (k.flags[i] & (model::kKernelIsCopy | model::kKernelIsFill)) {
        miss(
            "runtime copies and fills",
            [] { return std::string("a copy or fill the runtime ran as a kernel"); }, i, i);
        continue;
      }
      int32_t origin = graphs && i < graphs->kernel_origin.size() ? graphs->kernel_origin[i] : -1;
      if (origin >= 0) {
        const CapturedWork& w = graphs->origin_work[static_cast<size_t>(origin)];
        if (w.op.empty()) {
          const std::string& captured = graphs->origins[static_cast<size_t>(origin)].op;
          if (captured.empty() || graphs->origins[static_cast<size_t>(origin)].graph.find(
                                      "no captured launch matched") != std::string::npos) {
            miss(
                "(graph replay)",
                [] {
                  return std::string(
                      "replayed by a CUDA/HIP graph no capture explains (give the capture trace "
                      "with --capture)");
                },
                l, i);
          } else {
            miss(
                captured, [&] { return NoModelWhy(captured, " (graph-replayed)"); }, l, i);
          }
          continue;
        }
        // One call per (graph launch, captured op call).
        auto [it, inserted] = graph_calls.try_emplace({l, w.call}, calls.size());
        if (inserted) calls.push_back(Call{w.op, w.args, {}, 0});
        charge(it->second, i);
        continue;
      }
      model::RowId site = l == model::kNoRow ? model::kNoRow : t.api.enclosing_op[l];
      model::RowId op = ModelledOpAround(t, site);
      if (op == model::kNoRow) {
        model::RowId inner = OpAround(t, site);
        if (inner == model::kNoRow) {
          auto why = [&] {
            std::string w = l == model::kNoRow ? "no launch call links it to the host"
                                               : "no framework op encloses its launch";
            if (site != model::kNoRow) {
              w += " (innermost range: ";
              w += t.str(t.cpu.name[site]);
              w += ")";
            }
            return w;
          };
          miss("(no CPU op)", why, l == model::kNoRow ? i : l, i);
        } else {
          site = inner;
          std::string_view name = t.str(t.cpu.name[site]);
          miss(
              name, [&] { return NoModelWhy(std::string(name)); }, site, i);
        }
        continue;
      }
      auto [it, inserted] = op_calls.try_emplace(op, calls.size());
      if (inserted) calls.push_back(Call{t.str(t.cpu.name[op]), t.str(t.cpu.args[op]), {}, 0});
      charge(it->second, i);
    }
  }

  // Pass 2: each call's work (cached per signature), aggregated per (op, shape, dtype). The
  // signatures are views into the trace's (or the captures') strings, which outlive this.
  void PriceCalls() {
    const auto& k = k_;
    const auto& t = t_;
    const auto& o = o_;
    auto& r = r_;
    auto& calls = calls_;
    auto& missed = missed_;
    auto& op_kernels = op_kernels_;
    const DevicePeaks* peaks = r.device.peaks;
    std::unordered_map<std::pair<std::string_view, std::string_view>, Signature, ViewPairHash>
        signatures;
    std::map<std::tuple<std::string, std::string, std::string>, size_t> op_index;
    for (size_t ci = 0; ci < calls.size(); ++ci) {
      const Call& c = calls[ci];
      const std::string_view name = c.name, args = c.args;
      auto [sit, fresh] = signatures.try_emplace({name, args});
      Signature& s = sit->second;
      if (fresh) {
        s.estimate = EstimateWork(name, args);
        const WorkModel* m = FindWorkModel(name);
        s.family = m ? std::string(m->family) : "";
        model::OpArgs decoded;
        if (model::DecodeOpArgs(args, &decoded)) s.shape = model::ShapeText(decoded);
        if (s.estimate.ok && peaks) s.ideal_ns = IdealNs(s.estimate.work, *peaks, &s.compute_bound);
        bool unused = false;
        if (s.estimate.ok && o.target)
          s.target_ideal_ns = IdealNs(s.estimate.work, *o.target, &unused);
      }
      if (!s.estimate.ok) {
        auto mit = missed.find(name);
        if (mit == missed.end()) mit = missed.emplace(std::string(name), Miss{}).first;
        Miss& m = mit->second;
        if (m.why.empty()) m.why = s.estimate.why;
        m.kernels += c.kernels.size(), m.gpu_ns += c.gpu_ns;
        m.calls.insert(ci);
        continue;
      }
      if (s.op == SIZE_MAX) {
        auto key = std::make_tuple(std::string(name), s.shape, s.estimate.work.dtype);
        auto [oit, added] = op_index.try_emplace(key, r.ops.size());
        if (added) {
          RooflineOp op;
          op.op = std::string(name), op.shape = s.shape, op.dtype = s.estimate.work.dtype;
          op.family = s.family;
          op.bound = !peaks ? "" : s.compute_bound ? "compute" : "memory";
          r.ops.push_back(std::move(op));
          op_kernels.emplace_back();
        }
        s.op = oit->second;
      }
      RooflineOp& op = r.ops[s.op];
      ++op.calls;
      op.flops += s.estimate.work.flops, op.bytes += s.estimate.work.bytes;
      op.gpu_ns += c.gpu_ns, op.ideal_ns += s.ideal_ns;
      r.modelled_ns += c.gpu_ns;
      for (size_t i : c.kernels) {
        r.kernel_op[i] = static_cast<int32_t>(s.op);
        double share =
            c.gpu_ns > 0 ? static_cast<double>(k.dur_ns[i]) / static_cast<double>(c.gpu_ns) : 0;
        r.kernel_ideal_ns[i] = s.ideal_ns * share;
        if (o.target) r.kernel_target_ideal_ns[i] = s.target_ideal_ns * share;
        RooflineKernel& rk = op_kernels[s.op][t.str(k.name[i])];
        ++rk.count, rk.gpu_ns += k.dur_ns[i];
      }
    }
  }

  // Rates per op, hot ops first (the kernels' op indices follow), the unmodelled time by op.
  void Finish() {
    auto& r = r_;
    auto& op_kernels = op_kernels_;
    auto& missed = missed_;
    const DevicePeaks* peaks = r.device.peaks;
    for (size_t i = 0; i < r.ops.size(); ++i) {
      RooflineOp& op = r.ops[i];
      double ns = static_cast<double>(std::max<int64_t>(1, op.gpu_ns));
      op.tflops = op.flops / ns / 1e3;
      op.tbps = op.bytes / ns / 1e3;
      op.intensity = op.bytes > 0 ? op.flops / op.bytes : 0;
      // Kernels the trace timed as 0 ns (microsecond-resolution tracers) give no rate.
      op.percent_of_bound = peaks && op.gpu_ns > 0 ? 100.0 * op.ideal_ns / ns : -1;
      for (auto& [name, rk] : op_kernels[i]) {
        rk.name = std::string(name);
        op.kernels.push_back(rk);
      }
      std::sort(op.kernels.begin(), op.kernels.end(),
                [](const RooflineKernel& a, const RooflineKernel& b) {
                  return a.gpu_ns != b.gpu_ns ? a.gpu_ns > b.gpu_ns : a.name < b.name;
                });
    }
    // Hot first; the kernel_op indices follow the new order.
    std::vector<size_t> order(r.ops.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const RooflineOp &x = r.ops[a], &y = r.ops[b];
      if (x.gpu_ns != y.gpu_ns) return x.gpu_ns > y.gpu_ns;
      return std::tie(x.op, x.shape, x.dtype) < std::tie(y.op, y.shape, y.dtype);
    });
    std::vector<int32_t> rank(order.size());
    std::vector<RooflineOp> sorted;
    for (size_t i = 0; i < order.size(); ++i) {
      rank[order[i]] = static_cast<int32_t>(i);
      sorted.push_back(std::move(r.ops[order[i]]));
    }
    r.ops.swap(sorted);
    for (int32_t& v : r.kernel_op)
      if (v >= 0) v = rank[static_cast<size_t>(v)];
    for (auto& [op, m] : missed) {
      r.unmodelled.push_back({op, m.calls.size(), m.kernels, m.gpu_ns, m.why});
    }
    std::sort(r.unmodelled.begin(), r.unmodelled.end(),
              [](const RooflineUnmodelled& a, const RooflineUnmodelled& b) {
                return a.gpu_ns != b.gpu_ns ? a.gpu_ns > b.gpu_ns : a.op < b.op;
              });
  }

 private:
  // An op's kernel not modelled; `why` is asked only for the op's first miss (the strings are
  // built once per op, not per kernel).
  template <typename Why>
  void AddMiss(std::string_view op, Why why, uint64_t call, size_t i) {
    auto it = missed_.find(op);
    if (it == missed_.end()) it = missed_.emplace(std::string(op), Miss{}).first;
    auto& m = it->second;
    if (m.why.empty()) m.why = why();
    ++m.kernels, m.gpu_ns += k_.dur_ns[i];
    m.calls.insert(call);
  }

  const model::Trace& t_;
  const RooflineOptions& o_;
  const GraphAttribution* graphs_;
  RooflineReport& r_;
  const model::KernelTable& k_;
  std::vector<Call> calls_;
  std::unordered_map<model::RowId, size_t> op_calls_;               // op row -> calls
  std::map<std::pair<model::RowId, int64_t>, size_t> graph_calls_;  // (graph launch, capture call)
  std::map<std::string, Miss, std::less<>> missed_;                 // by op
  std::vector<std::unordered_map<std::string_view, RooflineKernel>> op_kernels_;  // per op
};

}  // namespace

RooflineDevice PickRooflineDevice(const model::Trace& t, const RooflineOptions& o) {
  RooflineDevice d;
  std::map<int, int64_t> by_device;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    by_device[t.kernels.device[i]] += t.kernels.dur_ns[i];
  const model::Device* busiest = nullptr;
  int64_t most = -1;
  for (const model::Device& dev : t.devices) {
    auto it = by_device.find(dev.id);
    int64_t ns = it == by_device.end() ? 0 : it->second;
    if (ns > most) most = ns, busiest = &dev;
  }
  if (busiest) d.trace_name = busiest->name;
  if (!o.device.empty()) {
    d.peaks = FindDevice(o.device);
    d.how = d.peaks ? "--device " + o.device : "--device " + o.device + " is not a known device";
    return d;
  }
  if (!busiest) {
    d.how = "the trace describes no device; name it with --device";
    return d;
  }
  DeviceMatch m = IdentifyDevice(*busiest);
  d.peaks = m.peaks;
  if (!m.how.empty())
    d.how = m.how;
  else if (busiest->compute_units <= 0)
    d.how = "the trace does not say which GPU ran it; name it with --device";
  else
    d.how = "\"" + busiest->name + "\" is not a known device; name one with --device";
  return d;
}

RooflineReport ComputeRoofline(const model::Trace& t, const RooflineOptions& o,
                               const GraphAttribution* graphs) {
  RooflineReport r;
  r.device = PickRooflineDevice(t, o);
  r.kernel_op.assign(t.kernels.size(), -1);
  r.kernel_ideal_ns.assign(t.kernels.size(), 0);
  if (o.target) r.kernel_target_ideal_ns.assign(t.kernels.size(), 0);
  RooflineBuilder b(t, o, graphs, r);
  b.AssignCalls();
  b.PriceCalls();
  b.Finish();
  return r;
}

}  // namespace gpuscope::analysis
