#include "analysis/diff/comparability.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/text.h"

namespace gpuscope::analysis {

std::vector<std::string> ModelsOf(const model::Trace& t) {
  constexpr std::string_view kModule = "nn.Module: ";
  std::map<std::string, int64_t> roots;
  const auto& py = t.python;
  for (size_t f = 0; f < py.size(); ++f) {
    std::string_view name = t.str(py.name[f]);
    if (!name.starts_with(kModule)) continue;
    bool outer = true;  // no nn.Module frame above it
    for (model::RowId p = py.parent[f]; p != model::kNoRow && p < f && outer; p = py.parent[p])
      outer = !t.str(py.name[p]).starts_with(kModule);
    if (!outer) continue;
    name.remove_prefix(kModule.size());
    if (size_t u = name.rfind('_');
        u != std::string_view::npos && name.find_first_not_of("0123456789", u + 1) == name.npos)
      name = name.substr(0, u);  // "BertModel_0": the instance number goes
    roots[std::string(name)] += py.dur_ns[f];
  }
  std::vector<std::string> out;
  for (const auto& [name, ns] : roots) out.push_back(name);
  return out;
}

SharedWork SharedKernelTime(const DiffReport& r) {
  double shared_b = 0, shared_a = 0, all_b = 0, all_a = 0;
  for (const NamedDiff& k : r.kernels) {
    all_b += static_cast<double>(k.total_before), all_a += static_cast<double>(k.total_after);
    if (k.calls_before > 0 && k.calls_after > 0)
      shared_b += static_cast<double>(k.total_before),
          shared_a += static_cast<double>(k.total_after);
  }
  return {all_b > 0 ? shared_b / all_b : 1, all_a > 0 ? shared_a / all_a : 1};
}

// True when what `w` names (its op, else its kernel) runs in the warm-up steps of `s` and not in
// its steady window: a finding gone from the steady steps moved there.
bool OnlyInWarmup(const model::Trace& t, const SteadyState& s, const Where& w) {
  if (s.warmup == 0 || s.warmup > s.iterations.size() || (w.op.empty() && w.kernel.empty()))
    return false;
  const int64_t warm_start = s.iterations.front().start_ns;
  const int64_t warm_end = s.iterations[s.warmup - 1].end_ns();
  bool warm = false;
  auto look = [&](const model::SliceColumns& rows, const std::string& name) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows.start_ns[i] < warm_start || t.str(rows.name[i]) != name) continue;
      if (rows.start_ns[i] >= s.start_ns && rows.start_ns[i] < s.end_ns) return false;
      warm = warm || rows.start_ns[i] < warm_end;
    }
    return warm;
  };
  return w.op.empty() ? look(t.kernels, w.kernel) : look(t.cpu, w.op);
}

namespace {

// What makes a side's timeline incomplete, in words; empty when nothing does.
std::string Incomplete(const AnalysisReport& a, const model::Trace& t) {
  if (!t.meta.import_error.empty()) return "its file breaks part-way (" + t.meta.import_error + ")";
  for (const HealthNote& n : a.health) {
    for (std::string_view id : kIncompleteTimelineNotes)
      if (n.id == id) return "its timeline is incomplete (" + n.id + ": " + n.seen + ")";
  }
  return {};
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Per framework op name: the kernel time launched from inside it (the deepest op around the
// launch call) in [start, end), and how many of its calls launched them.
struct OpWork {
  int64_t ns = 0;
  uint64_t calls = 0;
};
std::map<std::string, OpWork> KernelTimeByOp(const model::Trace& t, int64_t start, int64_t end) {
  std::map<std::string, OpWork> out;
  std::set<model::RowId> counted;
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.start_ns[i] < start || k.start_ns[i] >= end) continue;
    const model::RowId call = k.launch[i];
    const model::RowId op = call < t.api.size() ? t.api.enclosing_op[call] : model::kNoRow;
    if (op >= t.cpu.size()) continue;
    OpWork& w = out[std::string(t.str(t.cpu.name[op]))];
    w.ns += k.dur_ns[i];
    w.calls += counted.insert(op).second;
  }
  return out;
}

// The share of each side's kernel time launched from ops both ran as often per iteration (within
// 25%): fp32 and AMP runs of one program launch their GEMMs from the same aten::addmm, as many
// times a step, under different kernel names. Kernels launched outside any op are not shared.
SharedWork SharedOpKernelTime(const DiffReport& r, const model::Trace& before,
                              const model::Trace& after) {
  const auto b = KernelTimeByOp(before, r.before.steady.start_ns, r.before.steady.end_ns);
  const auto a = KernelTimeByOp(after, r.after.steady.start_ns, r.after.steady.end_ns);
  const double ib = std::max(1.0, r.iterations.before), ia = std::max(1.0, r.iterations.after);
  double shared_b = 0, shared_a = 0;
  for (const auto& [op, w] : b) {
    auto it = a.find(op);
    if (it == a.end()) continue;
    const double cb = static_cast<double>(w.calls) / ib;
    const double ca = static_cast<double>(it->second.calls) / ia;
    if (std::abs(ca - cb) > 0.25 * std::max(ca, cb)) continue;
    shared_b += static_cast<double>(w.ns), shared_a += static_cast<double>(it->second.ns);
  }
  return {r.kernel_ns.before > 0 ? shared_b / r.kernel_ns.before : 0,
          r.kernel_ns.after > 0 ? shared_a / r.kernel_ns.after : 0};
}

}  // namespace

std::string NotComparableReason(const DiffReport& r, const model::Trace& before,
                                const model::Trace& after) {
  if (std::string why = Incomplete(r.before, before); !why.empty()) return "the before run: " + why;
  if (std::string why = Incomplete(r.after, after); !why.empty()) return "the after run: " + why;
  std::vector<std::string> mb = ModelsOf(before), ma = ModelsOf(after);
  const bool same_model = std::any_of(mb.begin(), mb.end(), [&](const std::string& m) {
    return std::find(ma.begin(), ma.end(), m) != ma.end();
  });
  if (!mb.empty() && !ma.empty() && !same_model)
    return "they ran different models (" + Joined(mb) + " vs " + Joined(ma) + ")";
  // One model on both sides is the same work, whatever its kernels are called on each GPU.
  if (same_model) return {};
  SharedWork shared = SharedKernelTime(r);
  // Kernels renamed (another precision, library or GPU) but launched by the same ops: one program.
  const SharedWork by_op = SharedOpKernelTime(r, before, after);
  if (std::min(by_op.before, by_op.after) >= kMinSharedKernelShare) return {};
  if (r.kernel_ns.before > 0 && r.kernel_ns.after > 0 &&
      std::min(shared.before, shared.after) < kMinSharedKernelShare) {
    return "they share little work: " + base::FormatFixed(100 * shared.before, 0) +
           "% of the before run's kernel time and " + base::FormatFixed(100 * shared.after, 0) +
           "% of the after run's is in kernels both ran (under " +
           base::FormatFixed(100 * kMinSharedKernelShare, 0) + "%)";
  }
  return {};
}

}  // namespace gpuscope::analysis
