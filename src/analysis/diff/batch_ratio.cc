#include "analysis/diff/batch_ratio.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

#include "analysis/diff/diff.h"
#include "base/short_name.h"
#include "base/text.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace {

// Per op name: calls by the leading dimension of the first tensor input of 2+ dimensions.
using LeadingDims = std::map<std::string, std::map<int64_t, uint64_t>>;

LeadingDims Collect(const model::Trace& t, int64_t start, int64_t end) {
  LeadingDims out;
  const auto& c = t.cpu;
  std::unordered_map<model::StringId, int64_t> by_args;  // decoded once per distinct args text
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.kind[i] != model::CpuRangeKind::kOp || c.start_ns[i] < start || c.start_ns[i] >= end)
      continue;
    auto [it, fresh] = by_args.try_emplace(c.args[i], 0);
    if (fresh) {
      model::OpArgs args;
      std::string_view text = t.str(c.args[i]);
      if (!text.empty() && model::DecodeOpArgs(text, &args)) {
        for (const model::ArgShape& s : args.shapes) {
          if (s.dims.size() < 2) continue;
          it->second = s.dims[0] > 0 ? s.dims[0] : 0;
          break;
        }
      }
    }
    if (it->second > 0) ++out[std::string(t.str(c.name[i]))][it->second];
  }
  return out;
}

// The most common leading dimension and the calls holding it and all calls.
struct Mode {
  int64_t dim = 0;
  uint64_t calls = 0, total = 0;
};

Mode ModeOf(const std::map<int64_t, uint64_t>& dims) {
  Mode m;
  for (const auto& [dim, calls] : dims) {
    m.total += calls;
    if (calls > m.calls) m.dim = dim, m.calls = calls;
  }
  return m;
}

}  // namespace

BatchRatio FindBatchRatio(const model::Trace& before, int64_t before_start, int64_t before_end,
                          const model::Trace& after, int64_t after_start, int64_t after_end) {
  const LeadingDims b = Collect(before, before_start, before_end);
  const LeadingDims a = Collect(after, after_start, after_end);
  // Calls and op names per ratio (kept as the pair of dims reduced, so 2:512 and 4:1024 agree).
  struct Vote {
    uint64_t calls = 0, ops = 0, best_calls = 0;
    int64_t before = 0, after = 0;
    std::string op;
  };
  std::map<std::pair<int64_t, int64_t>, Vote> votes;
  uint64_t compared = 0;
  for (const auto& [name, dims_b] : b) {
    auto found = a.find(name);
    if (found == a.end()) continue;
    const Mode mb = ModeOf(dims_b), ma = ModeOf(found->second);
    const uint64_t weight = std::min(mb.total, ma.total);
    compared += weight;
    const int64_t g = std::gcd(mb.dim, ma.dim);
    Vote& v = votes[{mb.dim / g, ma.dim / g}];
    v.calls += weight, ++v.ops;
    if (weight > v.best_calls)
      v.best_calls = weight, v.before = mb.dim, v.after = ma.dim, v.op = name;
  }
  BatchRatio r;
  r.compared_calls = compared;
  const Vote* top = nullptr;
  for (const auto& [key, v] : votes)
    if (!top || v.calls > top->calls) top = &v;
  if (!top || top->ops < kMinAgreeingOps ||
      static_cast<double>(top->calls) < kMinAgreeingShare * static_cast<double>(compared))
    return r;
  r.agreeing_calls = top->calls;
  if (top->before == top->after) return r;  // the same work per step
  r.before = top->before, r.after = top->after, r.op = top->op;
  r.ratio = static_cast<double>(top->after) / static_cast<double>(top->before);
  return r;
}

BatchRatio FindTokenRatio(const SteadyState& before, const SteadyState& after) {
  auto mean_tokens = [](const SteadyState& s) {
    double sum = 0;
    size_t n = 0;
    for (size_t i = s.warmup; i < s.iterations.size(); ++i) {
      const IterationSpan& it = s.iterations[i];
      if (it.warmup) continue;
      if (it.tokens <= 0) return -1.0;  // a step without its count: the ratio is not known
      sum += static_cast<double>(it.tokens), ++n;
    }
    return n ? sum / static_cast<double>(n) : -1.0;
  };
  BatchRatio r;
  const double b = mean_tokens(before), a = mean_tokens(after);
  if (b <= 0 || a <= 0 || std::abs(a / b - 1) < kMinTokenChange) return r;
  r.unit = "token", r.op = "the serving steps' annotations";
  r.before = std::max<int64_t>(1, std::llround(b)), r.after = std::max<int64_t>(1, std::llround(a));
  r.ratio = a / b;
  return r;
}

// The change per sample when the runs' batch sizes differ (the iteration test already ran per
// sample; a kernel-time basis is judged again on the per-sample change). Says so in the basis.
double PerSampleChange(DiffReport& r, double change, double changed_percent) {
  const BatchRatio& b = r.batch;
  change = 100.0 * ((1 + change / 100.0) / b.ratio - 1);
  if (b.unit == "token") {
    r.basis += ", per token: " + std::to_string(b.before) + " vs " + std::to_string(b.after) +
               " tokens per step (" + b.op + ")";
  } else {
    r.basis += ", per sample: batch " + std::to_string(b.before) + " vs " +
               std::to_string(b.after) + " (the leading dimension of " +
               base::ShortenName(b.op, 40) + "'s input and of most ops' both runs called)";
  }
  if (r.basis_kind == DiffReport::Basis::kKernelTime)
    r.significant = std::abs(change) >= changed_percent;
  return change;
}

void BatchRatio::PerSample(std::vector<int64_t>& times, int64_t& stddev_ns) const {
  if (!known()) return;
  auto scale = [&](int64_t v) {
    return static_cast<int64_t>(std::llround(static_cast<double>(v) / ratio));
  };
  for (int64_t& v : times) v = scale(v);
  stddev_ns = scale(stddev_ns);
}

}  // namespace gpuscope::analysis
