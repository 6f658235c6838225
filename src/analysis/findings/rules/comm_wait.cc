// comm-wait: work that waits for communication. On the GPU: compute kernels that found their
// stream idle and still waited for a collective on another stream to end (an event wait; the
// GPU is not idle meanwhile, the collective runs, so gpu-idle never sees this time). On the host:
// a thread inside a range that says it waits for communication (TorchRec's "Awaitable wait()",
// All2All_..._Wait, wait_sparse_data_dist, barriers) that spends its time in no call or op of its
// own - spinning or blocked until the transfer is done.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/common/name_memo.h"
#include "analysis/findings/rules/rule_checks.h"
#include "analysis/replay/replay_graph.h"
#include "base/text.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace comm_wait_rule {
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

void DetectStreamWaits(const Context& c, Claims& claims, std::vector<Candidate>& out);

// A range whose name says it waits (wait, Wait(), Awaitable, barrier) for communication (a
// collective, a distributed input, an awaitable of TorchRec's); "wait_for_batch" is the loader's.
bool IsCommWaitRange(std::string_view n) {
  std::string lower = base::AsciiLower(n.substr(0, 200));
  auto has = [&](std::string_view w) { return lower.find(w) != std::string::npos; };
  if (!has("wait") && !has("barrier")) return false;
  for (std::string_view w : {"awaitable", "all2all", "alltoall", "all_to_all", "allreduce",
                             "all_reduce", "allgather", "all_gather", "reduce_scatter", "_dist",
                             "dist_", "sdd_", "c10d", "nccl", "rccl", "gloo", "barrier"}) {
    if (has(w)) return true;
  }
  return false;
}

// At least this much of a waiting range's own time (outside its calls and ops) to count it.
constexpr int64_t kMinWaitNs = 100'000;

void DetectHostWaits(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  std::unordered_map<RowId, std::vector<std::pair<int64_t, int64_t>>> inner;  // row -> its work
  std::vector<RowId> rows;
  NameMemo waits_by_name(t, IsCommWaitRange);  // whether a name waits
  auto waits = [&](RowId r) { return waits_by_name(cpu.name[r]); };
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (!c.In(cpu.start_ns[i]) || !waits(static_cast<RowId>(i))) continue;
    bool nested = false;  // the outermost waiting range counts, once
    for (RowId p = cpu.parent[i]; p != kNoRow && !nested; p = cpu.parent[p]) nested = waits(p);
    if (!nested) rows.push_back(static_cast<RowId>(i)), inner[static_cast<RowId>(i)];
  }
  if (rows.empty()) return;
  // The work inside a waiting range: its descendant ops and calls, except the ranges that say
  // they wait too (All2All_..._WaitBackward inside autograd's evaluate_function of it).
  auto owner = [&](RowId p) {  // the counted waiting range `p` lies in, or inner.end()
    for (int depth = 0; p != kNoRow && depth < 256; p = cpu.parent[p], ++depth) {
      auto it = inner.find(p);
      if (it != inner.end()) return it;
    }
    return inner.end();
  };
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.parent[i] == kNoRow || waits(static_cast<RowId>(i))) continue;
    auto it = owner(cpu.parent[i]);
    if (it != inner.end()) it->second.emplace_back(cpu.start_ns[i], cpu.end_ns(i));
  }
  for (size_t i = 0; i < t.api.size(); ++i) {
    auto it = owner(t.api.enclosing_op[i]);
    if (it != inner.end()) it->second.emplace_back(t.api.start_ns[i], t.api.end_ns(i));
  }
  Candidate cand{Make(c, "comm-wait", 0), {}};
  Finding& f = cand.finding;
  std::map<std::string, int64_t> by_name;
  int64_t total = 0;
  size_t counted = 0;
  std::vector<std::pair<int64_t, RowId>> longest;  // (own time, row)
  for (RowId r : rows) {
    auto& kids = inner[r];
    std::sort(kids.begin(), kids.end());
    std::vector<std::pair<int64_t, int64_t>> own;  // the range minus its children
    int64_t at = cpu.start_ns[r];
    for (const auto& [s, e] : kids) {
      if (s > at) own.emplace_back(at, s);
      at = std::max(at, e);
    }
    if (cpu.end_ns(r) > at) own.emplace_back(at, cpu.end_ns(r));
    int64_t ns = 0;
    for (const auto& [s, e] : own) ns += e - s;
    if (ns < kMinWaitNs) continue;
    ++counted, total += ns, by_name[std::string(t.str(cpu.name[r]))] += ns;
    longest.emplace_back(ns, r);
    for (const auto& [s, e] : own) {
      cand.fix.host_scale.push_back({cpu.track[r], s, e, 0.0});
      claims.Explain(s, e);
    }
  }
  if (!counted) return;
  auto top = std::max_element(by_name.begin(), by_name.end(),
                              [](auto& a, auto& b) { return a.second < b.second; });
  f.where.op = top->first;
  f.detail = base::Counted(counted, "host wait", "host waits") + " for communication (" +
             c.PerIterationText(static_cast<double>(counted)) + "), " +
             base::FormatDuration(total) + " in no call or op of " +
             (counted == 1 ? "its" : "their") + " own";
  cand.fix.what = "the host no longer waits for the transfers (it runs on while they complete)";
  std::sort(longest.rbegin(), longest.rend());
  f.where.python = c.at().PythonOf(longest.front().second);
  for (const auto& [ns, r] : longest)
    AddEvidence(c, f, cpu.start_ns[r], ns, "host waits in " + std::string(t.str(cpu.name[r])));
  out.push_back(std::move(cand));
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  DetectHostWaits(c, claims, out);
  DetectStreamWaits(c, claims, out);
}

void DetectStreamWaits(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& k = t.kernels;
  std::unordered_map<int, std::vector<CommEnd>> comm;  // per device, by end
  std::vector<uint8_t> is_comm(k.size(), 0);
  NameMemo comm_kernel(t, IsCommKernelName);
  for (size_t i = 0; i < k.size(); ++i) {
    if (!comm_kernel(k.name[i])) continue;
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
    auto it = stream_free.try_emplace(k.track[i], INT64_MIN).first;
    int64_t prev_end = it->second;
    it->second = std::max(prev_end, k.end_ns(i));
    if (is_comm[i] || k.launch[i] == kNoRow || !c.GpuIn(k.start_ns[i], k.launch[i])) continue;
    int64_t ready = std::max(prev_end, t.api.end_ns(k.launch[i]));
    int64_t start = k.start_ns[i];
    if (start - ready < kLateStartNs) continue;
    auto d = comm.find(k.device[i]);
    if (d == comm.end()) continue;
    const auto& v = d->second;
    auto e = std::upper_bound(v.begin(), v.end(), start,
                              [](int64_t s, const CommEnd& x) { return s < x.end_ns; });
    for (int n = 0; e != v.begin() && n < 16; ++n) {
      const CommEnd& x = *--e;
      if (start - x.end_ns > kStreamHandoffNs) break;
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
  f.detail = base::Counted(waits.size(), "kernel", "kernels") +
             " waited for a collective on another stream (" +
             c.PerIterationText(static_cast<double>(waits.size())) + "), " +
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
}  // namespace comm_wait_rule

const RuleInfo& CommWaitRule() {
  static const RuleInfo rule{
      .id = "comm-wait",
      .title = "Compute or the host waits for communication",
      .definition =
          "two forms, one finding each. GPU: compute kernels in the steady window that found their "
          "stream free (its previous kernel done, their launch call returned) and started more "
          "than 10 us later, within 20 us of the end of a collective kernel (NCCL/RCCL) on another "
          "stream of the same GPU: an event wait between the streams; the GPU is busy with the "
          "collective meanwhile, so gpu-idle does not see this time. Host: the outermost CPU "
          "ranges whose name says they wait (wait, Awaitable, barrier) for communication (all2all, "
          "all_reduce, allgather, _dist, c10d, nccl, gloo, barrier ...) with at least 100 us "
          "outside their own calls and ops (the thread spins or blocks). Never fires on traces "
          "without collective kernels or such ranges, on a kernel queued behind work of its own "
          "stream, or on waits for other things (wait_for_batch is the loader's).",
      .impact =
          "replayed: the GPU form's kernels no longer wait for the collective (they run beside it, "
          "their own stream's order and launches kept); the host form's waiting time leaves the "
          "thread (its calls and ops inside the range stay). Whether the program can go on before "
          "the transfer's result is there (a tensor-parallel all-reduce feeding the next layer, "
          "the splits of the next all-to-all) is not in the trace: there the saving is an upper "
          "bound",
      .advice =
          "Wait for a collective only where its result is needed: issue it asynchronously "
          "(async_op=True, wait on its work handle later), let DDP/FSDP bucket and prefetch, split "
          "the compute into chunks that overlap the transfers (async tensor parallelism, "
          "torch.compile micro-pipelining), or send less (bf16/fp8 communication).",
      .detect = &comm_wait_rule::Detect,
      .limits =
          "traces without collective kernels or waiting ranges; a kernel queued behind work of its "
          "own stream; waits for anything but communication (wait_for_batch is the loader's)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
