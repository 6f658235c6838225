// The tracer's spacing of graph-replayed kernels (tracer_spacing.h).

#include "analysis/common/tracer_spacing.h"

#include <algorithm>
#include <map>

#include "analysis/common/call_names.h"
#include "analysis/common/median.h"

namespace gpuscope::analysis {
namespace {

constexpr uint64_t kMinSpacedGaps = 100;
constexpr int64_t kMinSpacingNs = 3'000;

bool RocmTool(const model::Trace& t) {
  const std::string& f = t.meta.format;
  return f.rfind("roc", 0) == 0 || f == "rpd";
}

}  // namespace

TracerSpacing FindTracerSpacing(const model::Trace& t) {
  TracerSpacing sp;
  if (!RocmTool(t)) return sp;
  std::map<std::pair<model::RowId, model::TrackId>, int64_t> last_end;  // per launch and stream
  std::vector<std::pair<int64_t, size_t>> gaps;                         // (gap, kernel after it)
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    model::RowId l = k.launch[i];
    if (l == model::kNoRow || !IsGraphLaunchApi(t.str(t.api.name[l]))) continue;
    auto [it, added] = last_end.try_emplace({l, k.track[i]}, k.end_ns(i));
    if (!added) {
      gaps.emplace_back(k.start_ns[i] - it->second, i);
      it->second = std::max(it->second, k.end_ns(i));
    }
  }
  if (gaps.size() < kMinSpacedGaps) return sp;
  std::vector<int64_t> values;
  for (const auto& g : gaps) values.push_back(g.first);
  const int64_t m = UpperMedian(std::move(values));
  if (m < kMinSpacingNs) return sp;
  uint64_t regular = 0;
  for (const auto& g : gaps) regular += g.first >= m / 2 && g.first <= m + m / 2;
  if (5 * regular < 4 * gaps.size()) return sp;
  sp.gaps = gaps.size(), sp.median = m;
  for (const auto& [g, row] : gaps) {
    if (g <= kGraphDispatchNs) continue;
    sp.extra_ns += g - kGraphDispatchNs;
    sp.spaced.push_back(row);
  }
  return sp;
}

}  // namespace gpuscope::analysis
