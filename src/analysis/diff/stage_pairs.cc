// The stages of two runs paired for diff (diff.h, PairStages).

#include <algorithm>

#include "analysis/diff/diff.h"

namespace gpuscope::analysis {

std::vector<StagePair> PairStages(const std::vector<Stage>& before,
                                  const std::vector<Stage>& after) {
  // The longest common subsequence of the stages' kinds (a few dozen stages at most): the run's
  // shape kept in order; what the other run lacks is paired with nothing.
  const size_t n = before.size(), m = after.size();
  std::vector<std::vector<size_t>> lcs(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = before[i].kind == after[j].kind ? lcs[i + 1][j + 1] + 1
                                                  : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<StagePair> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i].kind == after[j].kind) {
      out.push_back({static_cast<int>(i++), static_cast<int>(j++)});
    } else if (j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back({static_cast<int>(i++), -1});
    } else {
      out.push_back({-1, static_cast<int>(j++)});
    }
  }
  return out;
}

}  // namespace gpuscope::analysis
