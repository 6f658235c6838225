// data-loading: the input pipeline (DataLoader's __next__) running on the thread that feeds
// the GPU, so that the GPU waits while the next batch is read, decoded and collated.

#include <algorithm>

#include "analysis/common/name_memo.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace data_loading_rule {
namespace {

constexpr const char* kWorkersAdvice =
    "The workers do not keep up: raise num_workers (up to the free CPU cores) and "
    "prefetch_factor, keep them alive (persistent_workers=True), and make each sample cheaper "
    "(decode and augment on the GPU, pre-processed or memory-mapped datasets, fewer Python "
    "transforms per sample).";

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  std::vector<size_t> rows;
  int64_t total = 0;
  NameMemo loader(t, IsDataLoaderRange);
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (!c.In(cpu.start_ns[i]) || !loader(cpu.name[i])) continue;
    RowId p = cpu.parent[i];
    bool nested = false;
    for (; p != kNoRow && !nested; p = cpu.parent[p]) nested = loader(cpu.name[p]);
    if (nested) continue;
    rows.push_back(i);
    total += cpu.dur_ns[i];
  }
  if (rows.empty()) return;
  Candidate cand{Make(c, "data-loading", 0), {}};
  Finding& f = cand.finding;
  f.where.op = std::string(t.str(cpu.name[rows.front()]));
  f.where.python = c.at().PythonOf(static_cast<RowId>(rows.front()));
  // With worker processes (_MultiProcessingDataLoaderIter) the thread does not load: it waits
  // for the workers' next batch, so its time in the loader is the workers falling behind.
  bool workers = t.str(cpu.name[rows.front()]).find("MultiProcessing") != std::string_view::npos;
  std::string per_iteration = " (" + c.PerIterationText(static_cast<double>(rows.size())) + "), ";
  if (workers) {
    f.detail = base::Counted(rows.size(), "wait", "waits") +
               " for the next batch from the worker processes" + per_iteration +
               base::FormatDuration(total) + " waiting";
    f.advice = kWorkersAdvice;
  } else {
    f.detail = base::Counted(rows.size(), "batch", "batches") + " loaded on the thread itself" +
               per_iteration + base::FormatDuration(total) + " in the loader";
  }
  for (size_t r : rows) {
    cand.fix.host_scale.push_back({cpu.track[r], cpu.start_ns[r], cpu.end_ns(r), 0.0});
    claims.Explain(cpu.start_ns[r], cpu.end_ns(r));
  }
  cand.fix.what = workers ? "workers that keep ahead: the wait leaves this thread"
                          : "loading in worker processes: the loader's time leaves this thread";
  std::sort(rows.begin(), rows.end(),
            [&](size_t a, size_t b) { return cpu.dur_ns[a] > cpu.dur_ns[b]; });
  for (size_t r : rows) AddEvidence(c, f, cpu.start_ns[r], cpu.dur_ns[r], "next batch");
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace data_loading_rule

const RuleInfo& DataLoadingRule() {
  static const RuleInfo rule{
      .id = "data-loading",
      .title = "The input pipeline runs on the thread that feeds the GPU",
      .definition =
          "CPU ranges of the data loader (enumerate(DataLoader)#..., any range naming DataLoader) "
          "inside the steady window: the batch is read, decoded and collated by the "
          "training/inference thread itself (DataLoader(num_workers=0)), or, with worker processes "
          "(_MultiProcessingDataLoaderIter), the thread waits for workers that fall behind. Priced "
          "by the replay: a wait while the GPU still runs queued work costs nothing.",
      .impact =
          "replayed: the loader's host time leaves the thread (workers prepare the batches ahead, "
          "or keep ahead when there are some); the copies it issues are kept.",
      .advice =
          "DataLoader(num_workers>0, pin_memory=True, persistent_workers=True, "
          "prefetch_factor=2..4); move decoding/augmentation to the workers or the GPU.",
      .detect = &data_loading_rule::Detect,
      .limits =
          "loader ranges outside the steady window or inside another loader range (counted once); "
          "waits for input under another name (a user's own wait_for_batch range is not "
          "recognised); a wait while the GPU still runs queued work is reported with the saving "
          "the replay gives, often none."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
