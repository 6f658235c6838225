#include "analysis/steps/step_sources.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/attribution/attribution.h"

namespace gpuscope::analysis::internal {
namespace {

// The decimal number that follows `key` in `s` (from position `from`); -1 when there is none.
int64_t NumberAfter(std::string_view s, std::string_view key, size_t from = 0,
                    size_t* end = nullptr) {
  size_t p = s.find(key, from);
  if (p == std::string_view::npos) return -1;
  p += key.size();
  size_t q = p;
  int64_t v = 0;
  while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q])) && q - p < 15)
    v = v * 10 + (s[q++] - '0');
  if (q == p) return -1;
  if (end) *end = q;
  return v;
}

// "step 12", "iter#3", "decode_7" -> "step #", "iter#", "decode_#": one loop's numbered markers.
std::string LoopName(std::string_view n) {
  size_t e = n.size();
  while (e > 0 && n[e - 1] >= '0' && n[e - 1] <= '9') --e;
  std::string out(n.substr(0, e));
  if (e < n.size()) out += "#";
  return out;
}

// Disjoint on their thread, in start order.
template <typename Table>
bool Disjoint(const Table& table, const std::vector<size_t>& rows) {
  for (size_t k = 1; k < rows.size(); ++k) {
    if (table.start_ns[rows[k]] < table.end_ns(rows[k - 1])) return false;
  }
  return true;
}

StepSource FromRows(const model::Trace& t, const model::SliceColumns& table,
                    const std::vector<size_t>& rows, std::string source) {
  StepSource s;
  s.source = std::move(source);
  for (size_t r : rows)
    s.spans.push_back(
        {table.start_ns[r], table.dur_ns[r], std::string(t.str(table.name[r])), table.track[r]});
  return s;
}

}  // namespace

ServingLabel ParseServingLabel(std::string_view n) {
  ServingLabel l;
  if (n.rfind("execute_", 0) == 0 && n.find("context_") != std::string_view::npos &&
      n.find("generation_") != std::string_view::npos) {
    // vLLM: execute_<tokens>_context_<requests>(sq<tokens>...)_generation_<requests>(sq<tokens>...)
    l.serving = true, l.family = "vllm execute";
    size_t c_end = 0, g_end = 0;
    int64_t context = NumberAfter(n, "context_", 0, &c_end);
    int64_t generation = NumberAfter(n, "generation_", 0, &g_end);
    if (context >= 0 && generation >= 0) {
      l.phase = context > 0 && generation > 0 ? "mixed" : context > 0 ? "prefill" : "decode";
      if (context == 0 && generation == 0) l.phase.clear();
    }
    int64_t sq_c = c_end ? NumberAfter(n.substr(c_end, n.find(')', c_end) - c_end), "(sq") : -1;
    int64_t sq_g = g_end ? NumberAfter(n.substr(g_end, n.find(')', g_end) - g_end), "(sq") : -1;
    l.tokens = sq_c >= 0 && sq_g >= 0 ? sq_c + sq_g : NumberAfter(n, "execute_");
    return l;
  }
  if (n.rfind("step[", 0) == 0 && n.find(']') != std::string_view::npos) {
    // SGLang: step[DECODE bs=32], step[EXTEND bs=4 ...], step[PREFILL ...], step[MIXED ...]
    l.serving = true, l.family = "sglang step";
    std::string_view mode = n.substr(5, n.find_first_of(" ]", 5) - 5);
    if (mode == "DECODE") l.phase = "decode";
    if (mode == "EXTEND" || mode == "PREFILL") l.phase = "prefill";
    if (mode == "MIXED") l.phase = "mixed";
    l.tokens = NumberAfter(n, "tokens=");
    if (l.tokens < 0 && l.phase == "decode") l.tokens = NumberAfter(n, "bs=");  // one per request
  }
  return l;
}

WorkIndex::WorkIndex(const model::Trace& t, Work work) {
  by_track_.resize(t.tracks.size());
  prefix_.resize(t.tracks.size());
  // Each track's starts in order, with their weights.
  std::vector<std::vector<std::pair<int64_t, size_t>>> added(t.tracks.size());
  if (work == Work::kGpuLaunches) {
    // GPU ops per launch call: a graph launch weighs as much as the kernels it replays.
    std::vector<uint32_t> ops(t.api.size(), 0);
    for (model::RowId l : t.kernels.launch)
      if (l != model::kNoRow) ++ops[l];
    for (model::RowId l : t.memops.launch)
      if (l != model::kNoRow) ++ops[l];
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i] && t.api.track[i] < added.size())
        added[t.api.track[i]].emplace_back(t.api.start_ns[i], ops[i]);
  } else {
    // An op inside another op is part of the outer one's time (parents come first after the
    // linker's sort; a parent after its child is walked up to).
    const auto& cpu = t.cpu;
    std::vector<uint8_t> in_op(cpu.size(), 0);
    for (size_t i = 0; i < cpu.size(); ++i) {
      model::RowId p = cpu.parent[i];
      for (int guard = 0; p != model::kNoRow && !in_op[i] && guard < 256; ++guard) {
        in_op[i] = cpu.kind[p] == model::CpuRangeKind::kOp || (p < i && in_op[p]);
        if (p < i) break;
        p = cpu.parent[p];
      }
      if (!in_op[i] && cpu.kind[i] == model::CpuRangeKind::kOp && cpu.track[i] < added.size())
        added[cpu.track[i]].emplace_back(cpu.start_ns[i],
                                         static_cast<size_t>(std::max<int64_t>(0, cpu.dur_ns[i])));
    }
  }
  for (size_t track = 0; track < added.size(); ++track) {
    auto& v = added[track];
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [start, weight] : v) {
      by_track_[track].push_back(start);
      prefix_[track].push_back((prefix_[track].empty() ? 0 : prefix_[track].back()) + weight);
      total_ += weight;
    }
  }
}

size_t WorkIndex::CountIn(model::TrackId track, int64_t start, int64_t end) const {
  if (track >= by_track_.size()) return 0;
  const auto& v = by_track_[track];
  const auto& p = prefix_[track];
  size_t a = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), start) - v.begin());
  size_t b = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), end) - v.begin());
  if (b <= a) return 0;
  return p[b - 1] - (a ? p[a - 1] : 0);
}

StepSource ServingSteps(const model::Trace& t, const WorkIndex& launches) {
  const auto& cpu = t.cpu;
  std::map<std::pair<std::string, model::TrackId>, std::vector<size_t>> groups;
  std::unordered_map<model::StringId, std::string> family;  // "" = not a serving annotation
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kAnnotation) continue;
    auto [it, inserted] = family.emplace(cpu.name[i], std::string());
    if (inserted) it->second = ParseServingLabel(t.str(cpu.name[i])).family;
    if (!it->second.empty()) groups[{it->second, cpu.track[i]}].push_back(i);
  }
  // The family whose steps launch the most GPU work; on a tie the outer (longer) one.
  const std::vector<size_t>* best = nullptr;
  std::pair<size_t, int64_t> best_score{0, 0};
  std::string best_family;
  for (const auto& [key, rows] : groups) {
    if (!Disjoint(cpu, rows)) continue;
    std::pair<size_t, int64_t> score{0, 0};
    for (size_t r : rows) {
      score.first += launches.CountIn(cpu.track[r], cpu.start_ns[r], cpu.end_ns(r));
      score.second += cpu.dur_ns[r];
    }
    if (!best || score > best_score) best = &rows, best_score = score, best_family = key.first;
  }
  if (!best) return {};
  // SGLang writes vLLM-style execute_ labels inside its own step[...] ones: the steps are
  // SGLang's whichever family was taken.
  const bool sglang = std::any_of(groups.begin(), groups.end(),
                                  [](const auto& g) { return g.first.first == "sglang step"; });
  if (sglang && best_family == "vllm execute") best_family = "sglang execute";
  return FromRows(t, cpu, *best, "serving steps (" + best_family + " annotations)");
}

StepSource RepeatedAnnotationSteps(const model::Trace& t, const WorkIndex& launches,
                                   size_t min_repeats) {
  const auto& cpu = t.cpu;
  std::map<std::pair<std::string, model::TrackId>, std::vector<size_t>> groups;
  std::unordered_map<model::StringId, std::string> loop_names;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kAnnotation || cpu.depth[i] > 1) continue;
    auto [it, inserted] = loop_names.emplace(cpu.name[i], std::string());
    if (inserted) it->second = LoopName(t.str(cpu.name[i]));
    groups[{it->second, cpu.track[i]}].push_back(i);
  }
  const std::vector<size_t>* best = nullptr;
  int64_t best_total = 0;
  std::string best_name;
  for (const auto& [key, rows] : groups) {
    if (rows.size() < min_repeats || !Disjoint(cpu, rows)) continue;
    // Blocks inside one enclosing annotation (compiled graph pieces inside a capture) are
    // structure of that annotation, not steps.
    bool shared_parent = false;
    for (size_t k = 1; k < rows.size() && !shared_parent; ++k) {
      model::RowId p = cpu.parent[rows[k]];
      shared_parent = p != model::kNoRow && p == cpu.parent[rows[k - 1]] &&
                      cpu.kind[p] == model::CpuRangeKind::kAnnotation;
    }
    if (shared_parent) continue;
    // Steps enclose the GPU work: most of the trace's launches when it has any.
    size_t enclosed = 0;
    int64_t total = 0;
    for (size_t r : rows) {
      enclosed += launches.CountIn(cpu.track[r], cpu.start_ns[r], cpu.end_ns(r));
      total += cpu.dur_ns[r];
    }
    if (launches.total() > 0 && 2 * enclosed < launches.total()) continue;
    if (total > best_total) best = &rows, best_total = total, best_name = key.first;
  }
  if (!best) return {};
  return FromRows(t, cpu, *best, "repeated annotation '" + best_name + "'");
}

StepSource PythonLoopSteps(const model::Trace& t, const WorkIndex& gpu_launches,
                           size_t min_repeats) {
  const auto& py = t.python;
  if (py.size() == 0) return {};
  // No GPU launches (a CPU-only run): the loop is the frame that encloses the CPU ops' time.
  std::optional<WorkIndex> cpu_ops;
  if (gpu_launches.total() == 0) cpu_ops.emplace(t, WorkIndex::Work::kCpuOpTime);
  const WorkIndex& launches = cpu_ops ? *cpu_ops : gpu_launches;
  if (launches.total() == 0) return {};
  // Depth of each frame (parents come first after the linker's sort).
  std::vector<uint32_t> depth(py.size(), 0);
  for (size_t f = 0; f < py.size(); ++f) {
    model::RowId p = py.parent[f];
    if (p != model::kNoRow && p < f) depth[f] = depth[p] + 1;
  }
  std::map<std::pair<model::StringId, model::TrackId>, std::vector<size_t>> groups;
  for (size_t f = 0; f < py.size(); ++f) {
    // The loop is the program's (or its serving framework's): not a library's (torch/,
    // transformers/, site-packages, the standard library), whose repeated frames are layers.
    if (!IsUserFrame(t.str(py.name[f]))) continue;
    groups[{py.name[f], py.track[f]}].push_back(f);
  }
  const std::vector<size_t>* best = nullptr;
  std::pair<uint32_t, size_t> best_key{0, 0};  // (depth, -launches) minimised
  size_t best_launches = 0;
  for (const auto& [key, rows] : groups) {
    if (rows.size() < min_repeats || !Disjoint(py, rows)) continue;
    size_t enclosed = 0;
    bool each = true;
    uint32_t d = UINT32_MAX;
    for (size_t r : rows) {
      size_t n = launches.CountIn(py.track[r], py.start_ns[r], py.end_ns(r));
      each = each && n > 0;
      enclosed += n;
      d = std::min(d, depth[r]);
    }
    if (!each || 2 * enclosed < launches.total()) continue;
    if (!best || d < best_key.first || (d == best_key.first && enclosed > best_launches))
      best = &rows, best_key = {d, 0}, best_launches = enclosed;
  }
  if (!best) return {};
  return FromRows(t, py, *best,
                  "repeated Python frame '" + std::string(t.str(py.name[best->front()])) + "'");
}

size_t KernelPeriod(const std::vector<model::StringId>& names, size_t min_repeats) {
  size_t n = names.size();
  if (n < 2 * min_repeats) return 0;
  for (size_t p = 1; p <= n / min_repeats && p <= 4096; ++p) {
    size_t limit = n - p - (n - p) * 9 / 10;  // mismatches allowed
    size_t miss = 0;
    for (size_t i = p; i < n && miss <= limit; ++i) miss += names[i] != names[i - p];
    if (miss > limit) continue;
    // A period of one repeated name says nothing (any multiple fits).
    std::unordered_set<model::StringId> distinct(names.begin(),
                                                 names.begin() + static_cast<long>(p));
    if (distinct.size() < 2) {
      if (std::all_of(names.begin(), names.end(), [&](auto v) { return v == names[0]; })) return 0;
      continue;
    }
    return p;
  }
  return 0;
}

}  // namespace gpuscope::analysis::internal
