// host-sync: host synchronisations inside the steady state, with the copy that forced them.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

void HostSync(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  bool gpu = c.devices() > 0;
  struct Sync {
    int64_t s, e;
    std::string what;
    Where where;
    int64_t dtoh_bytes = -1;
    RowId op = kNoRow;
  };
  std::vector<Sync> syncs;
  std::unordered_map<RowId, size_t> by_op;
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (!c.In(t.cpu.start_ns[i]) || !IsItemOp(t.str(t.cpu.name[i]))) continue;
    RowId p = t.cpu.parent[i];
    if (p != kNoRow && IsItemOp(t.str(t.cpu.name[p]))) continue;  // _local_scalar_dense inside item
    Sync s{t.cpu.start_ns[i],    t.cpu.end_ns(i), std::string(t.str(t.cpu.name[i])), {}, -1,
           static_cast<RowId>(i)};
    s.where.op = s.what;
    s.where.python = c.at().PythonOf(static_cast<RowId>(i));
    by_op[static_cast<RowId>(i)] = syncs.size();
    syncs.push_back(std::move(s));
  }
  for (size_t i = 0; i < t.api.size(); ++i) {
    std::string_view n = t.str(t.api.name[i]);
    if (!c.In(t.api.start_ns[i]) || !IsSyncApi(n) || t.api.domain[i] == model::ApiDomain::kOs)
      continue;
    bool inside_item = false;
    for (RowId r = t.api.enclosing_op[i]; r != kNoRow && !inside_item; r = t.cpu.parent[r])
      inside_item = by_op.count(r) > 0;
    if (inside_item) continue;
    Sync s{t.api.start_ns[i],
           t.api.end_ns(i),
           std::string(n),
           c.at().Api(static_cast<RowId>(i)),
           -1,
           kNoRow};
    if (s.where.op.empty()) s.where.op = s.what;
    syncs.push_back(std::move(s));
  }
  if (syncs.empty()) return;
  // The small device-to-host copy each .item() forced.
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (t.memops.kind[m] != model::MemopKind::kDtoH || t.memops.launch[m] == kNoRow) continue;
    for (RowId r = t.api.enclosing_op[t.memops.launch[m]]; r != kNoRow; r = t.cpu.parent[r]) {
      auto it = by_op.find(r);
      if (it != by_op.end()) {
        syncs[it->second].dtoh_bytes = std::max<int64_t>(0, t.memops.bytes[m]);
        break;
      }
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<const Sync*>> groups;
  for (const auto& s : syncs) groups[{s.where.python, s.what}].push_back(&s);
  for (auto& [key, list] : groups) {
    int64_t impact = 0;
    std::vector<std::pair<int64_t, const Sync*>> costs;
    for (const Sync* s : list) {
      int64_t cost =
          gpu ? c.IdleWithin(s->s,
                             std::max(s->e, std::min(c.NextGpuStart(s->e), s->e + c.window())))
              : s->e - s->s;
      impact += cost;
      costs.emplace_back(cost, s);
    }
    Finding f = Make(c, "host-sync", impact);
    f.where.python = key.first;
    f.where.op = list.front()->where.op;
    size_t with_copy = 0;
    int64_t bytes = 0;
    for (const Sync* s : list) {
      if (s->dtoh_bytes >= 0) ++with_copy, bytes += s->dtoh_bytes;
    }
    f.detail = base::FormatCount(list.size()) + " x " + key.second + " (" +
               c.PerIterationText(static_cast<double>(list.size())) + ")" +
               (with_copy ? ", " + base::FormatCount(with_copy) + " with a device-to-host copy (" +
                                base::FormatBytes(bytes) + ")"
                          : "") +
               (gpu ? ", GPU idle after them: " + base::FormatDuration(impact)
                    : ", host time: " + base::FormatDuration(impact));
    std::sort(costs.rbegin(), costs.rend());
    for (auto& [cost, s] : costs) {
      AddEvidence(c, f, s->s, s->e - s->s,
                  s->what +
                      (s->dtoh_bytes >= 0 ? " + DtoH " + base::FormatBytes(s->dtoh_bytes) : "") +
                      (gpu ? ", GPU idle " + base::FormatDuration(cost) : ""));
    }
    out.push_back(std::move(f));
  }
}

}  // namespace gpuscope::analysis::internal
