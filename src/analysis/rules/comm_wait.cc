// comm-wait: compute kernels that found their stream idle and still waited for a collective on
// another stream to end (an event wait: the compute stream waits on the communication stream).
// The GPU is not idle meanwhile (the collective runs), so gpu-idle never sees this time.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/analyze.h"
#include "analysis/call_names.h"
#include "analysis/replay_graph_internal.h"
#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

namespace {

struct CommEnd {
  int64_t end_ns, start_ns;
  model::TrackId track;
  model::StringId name;
};

struct Wait {
  size_t kernel;
  int64_t from_ns, ns;  // the wait: [from, from + ns), ending at the kernel's start
  model::StringId comm;
};

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& k = t.kernels;
  std::unordered_map<int, std::vector<CommEnd>> comm;  // per device, by end
  std::vector<uint8_t> is_comm(k.size(), 0);
  for (size_t i = 0; i < k.size(); ++i) {
    if (!IsCommKernelName(t.str(k.name[i]))) continue;
    is_comm[i] = 1;
    comm[k.device[i]].push_back({k.end_ns(i), k.start_ns[i], k.track[i], k.name[i]});
  }
  if (comm.empty()) return;
  for (auto& [dev, v] : comm)
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.end_ns < b.end_ns; });

  // Kernels in start order per stream: ready when the stream's previous kernel ended and its
  // launch call returned; late past that by kLateStartNs right after a collective of another
  // stream ended (within kStreamHandoffNs) = waited for it (the replay infers the same edge).
  std::vector<size_t> order(k.size());
  for (size_t i = 0; i < k.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return k.start_ns[a] < k.start_ns[b]; });
  std::unordered_map<model::TrackId, int64_t> stream_free;
  std::vector<Wait> waits;
  for (size_t i : order) {
    auto it = stream_free.emplace(k.track[i], INT64_MIN).first;
    int64_t prev_end = it->second;
    it->second = std::max(prev_end, k.end_ns(i));
    if (is_comm[i] || k.launch[i] == kNoRow || !c.GpuIn(k.start_ns[i], k.launch[i])) continue;
    int64_t ready = std::max(prev_end, t.api.end_ns(k.launch[i]));
    int64_t start = k.start_ns[i];
    if (start - ready < replay_internal::kLateStartNs) continue;
    auto d = comm.find(k.device[i]);
    if (d == comm.end()) continue;
    const auto& v = d->second;
    auto e = std::upper_bound(v.begin(), v.end(), start,
                              [](int64_t s, const CommEnd& x) { return s < x.end_ns; });
    for (int n = 0; e != v.begin() && n < 16; ++n) {
      const CommEnd& x = *--e;
      if (start - x.end_ns > replay_internal::kStreamHandoffNs) break;
      if (x.track == k.track[i] || x.start_ns >= start) continue;
      int64_t from = std::max(ready, x.start_ns);
      if (claims.TakeKernel(i)) waits.push_back({i, from, start - from, x.name});
      break;
    }
  }
  if (waits.empty()) return;

  int64_t total = 0;
  std::map<model::StringId, int64_t> by_comm;
  for (const auto& w : waits) total += w.ns, by_comm[w.comm] += w.ns;
  model::StringId top = std::max_element(by_comm.begin(), by_comm.end(), [](auto& a, auto& b) {
                          return a.second < b.second;
                        })->first;
  Candidate cand{Make(c, "comm-wait", 0), {}};
  Finding& f = cand.finding;
  f.where.kernel = std::string(t.str(top));
  f.detail = base::FormatCount(waits.size()) + " kernels waited for a collective on another " +
             "stream (" + c.PerIterationText(static_cast<double>(waits.size())) + "), " +
             base::FormatDuration(total) + " waiting, the most for " + f.where.kernel;
  for (const auto& w : waits) cand.fix.stream_waits_dropped.push_back(w.kernel);
  cand.fix.what = "the compute runs beside the collectives it waited for";
  std::sort(waits.begin(), waits.end(), [](auto& a, auto& b) { return a.ns > b.ns; });
  for (const auto& w : waits)
    AddEvidence(c, f, w.from_ns, w.ns,
                std::string(t.str(k.name[w.kernel])) + " waited for " + std::string(t.str(w.comm)));
  out.push_back(std::move(cand));
}

}  // namespace

const RuleInfo& CommWaitRule() {
  static const RuleInfo rule{
      "comm-wait",
      "Compute waits for communication on another stream",
      "compute kernels in the steady window that found their stream free (its previous kernel "
      "done, their launch call returned) and started more than 10 us later, within 5 us of the "
      "end of a collective kernel (NCCL/RCCL) on another stream of the same GPU: an event wait "
      "between the streams. The GPU is busy with the collective meanwhile, so gpu-idle does not "
      "see this time. Never fires on traces without collective kernels, or on a kernel queued "
      "behind work of its own stream.",
      "replayed: these kernels no longer wait for the collective (they run beside it, their "
      "own stream's order and launches kept). Whether the program can start them before the "
      "collective's result is there (a tensor-parallel all-reduce feeding the next layer) is "
      "not in the trace: there the saving is an upper bound",
      "Wait for a collective only where its result is needed: issue it asynchronously "
      "(async_op=True, wait on its work handle later), let DDP/FSDP bucket and prefetch, split "
      "the compute into chunks that overlap the transfers (async tensor parallelism, "
      "torch.compile micro-pipelining), or send less (bf16/fp8 communication).",
      {},
      &Detect};
  return rule;
}

}  // namespace gpuscope::analysis::internal
