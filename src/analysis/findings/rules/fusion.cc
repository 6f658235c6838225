// fusion: chains of memory-bound kernels (elementwise ops, activations, norms, softmax) launched
// one after another on one stream from one Python line - each reads what the one before wrote
// back to memory. Priced by replaying the run with each chain as one kernel that moves the
// chain's compulsory bytes at the bandwidth the chain reached.

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/common/call_names.h"
#include "analysis/common/name_memo.h"
#include "analysis/findings/rules/host_op_removal.h"
#include "analysis/findings/rules/rule_checks.h"
#include "analysis/roofline/roofline.h"
#include "analysis/work/work_models.h"
#include "base/short_name.h"
#include "model/op_args.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace fusion_rule {
namespace {

// At most this many chains (by their GPU time) get a finding each.
constexpr size_t kMaxChains = 5;
// A run of more fusable kernels than this is a loop over many tensors (an optimizer's
// per-parameter updates), a storm for cpu-op-storm and launch-bound, not a chain to fuse.
constexpr size_t kMaxChainKernels = 32;
// A kernel that starts longer than this after the one before it ends does not follow it: the
// host did other work between the two ops (another step, another layer), and a fused kernel
// would not remove that time.
constexpr int64_t kMaxChainGapNs = 500'000;

// The work model families whose kernels are memory-bound and fuse into their neighbours.
bool FusableFamily(std::string_view family) {
  return family == "elementwise" || family == "act and mul" || family == "normalization" ||
         family == "softmax";
}

// One kernel of a chain.
struct Member {
  size_t kernel = 0;
  RowId op = kNoRow;              // the framework op that launched it (kNoRow: none)
  model::StringId label = 0;      // the op's name, or the kernel's without an op
  model::StringId python = 0;     // the user frame's name (0: none)
  double bytes = 0, written = 0;  // from the op's recorded shapes (0: not recorded)
  double numel = 0;               // the largest tensor argument's elements (0: not recorded)
};

// The elements of the largest tensor an op was called with: an elementwise op's output, a norm's
// input and output. Two ops of a chain that touch tensors of other sizes do not pass one tensor
// along (an optimizer's updates of two parameters, one after the other).
double LargestTensor(std::string_view args_text) {
  model::OpArgs args;
  if (!model::DecodeOpArgs(args_text, &args)) return 0;
  double largest = 0;
  for (const auto& s : args.shapes) {
    if (!s.known || s.dims.empty()) continue;
    double n = 1;
    for (int64_t d : s.dims) n *= static_cast<double>(std::max<int64_t>(0, d));
    largest = std::max(largest, n);
  }
  return largest;
}

// LargestTensor by the arguments' string id: kernels of one op and shapes share it.
using LargestTensors = NameMemo<double (*)(std::string_view)>;

// The member a kernel would be, or false when it is not memory-bound work that fuses.
bool Classify(const Context& c, size_t k, OpWorkCache& work, LargestTensors& largest, Member* m) {
  const Trace& t = c.t();
  m->kernel = k;
  RowId launch = t.kernels.launch[k];
  RowId r = launch == kNoRow ? kNoRow : OpAround(t, t.api.enclosing_op[launch]);
  if (r != kNoRow && t.str(t.cpu.name[r]).find("::") != std::string_view::npos) {
    const WorkModel* wm = FindWorkModel(t.str(t.cpu.name[r]));
    if (!wm || !FusableFamily(wm->family)) return false;
    m->op = r, m->label = t.cpu.name[r];
    RowId frame = c.at().UserFrameOfCpu(r);
    m->python = frame == kNoRow ? 0 : t.python.name[frame];
    if (t.cpu.args[r] != 0) {
      const WorkEstimate& e = work.Of(r);
      if (e.ok) m->bytes = e.work.bytes, m->written = e.work.written;
      m->numel = largest(t.cpu.args[r]);
    }
    return true;
  }
  // Without a framework op (a graph's kernels, a trace without ops): PyTorch's elementwise
  // kernels by name.
  std::string_view name = t.str(t.kernels.name[k]);
  if (name.find("elementwise_kernel") == std::string_view::npos) return false;
  m->label = t.kernels.name[k];
  return true;
}

// What a kernel without an op does, from its name: the functor or the kernel function PyTorch
// named ("CUDAFunctor_add", "MulFunctor", "gelu_kernel_cuda"), else the name shortened.
std::string KernelLabel(std::string_view name) {
  auto ident = [&](size_t at) {
    size_t b = at, e = at;
    auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    while (b > 0 && word(name[b - 1])) --b;
    while (e < name.size() && word(name[e])) ++e;
    return std::string(name.substr(b, e - b));
  };
  for (std::string_view key : {"Functor", "_kernel_cuda"}) {
    size_t p = name.rfind(key);
    if (p != std::string_view::npos) return ident(p);
  }
  return base::ShortenName(name, 40);
}

// The chain text: "mul -> add -> gelu" (framework ops without their namespace).
std::string ChainText(const Trace& t, const std::vector<Member>& chain) {
  std::string out;
  for (const Member& m : chain) {
    std::string_view n = t.str(m.label);
    if (m.op != kNoRow && n.starts_with("aten::")) n.remove_prefix(6);
    if (!out.empty()) out += " -> ";
    out += m.op != kNoRow ? std::string(n) : KernelLabel(n);
  }
  return out;
}

// Chains of one sequence of ops from one Python line.
struct Group {
  std::vector<std::vector<Member>> chains;
  std::vector<int64_t> fused_ns;  // per chain, its fused kernel's time (FuseChain)
  int64_t gpu_ns = 0;
  double bytes = 0, saved_bytes = 0;
  size_t sized = 0;  // chains whose every member's bytes are known
};

// The fused kernel's time for one chain: its compulsory bytes (every member's bytes less each
// intermediate written and read back) at the bandwidth the chain reached; without shapes, its
// longest member (a fused kernel reads the inputs and writes the output once, about one
// member's traffic). Never longer than the chain, never shorter than a kernel's fixed cost.
struct Fused {
  int64_t ns = 0;        // the fused kernel's time
  int64_t chain_ns = 0;  // the chain's kernels' time
  double bytes = 0;      // the chain's bytes (0 where not recorded)
  double saved = 0;      // of those, what the fused kernel does not move
  bool sized = false;    // every member's bytes are known
};
Fused FuseChain(const Trace& t, const std::vector<Member>& chain) {
  Fused f;
  int64_t longest = 0;
  double intermediate = 0;
  f.sized = true;
  for (size_t i = 0; i < chain.size(); ++i) {
    int64_t d = t.kernels.dur_ns[chain[i].kernel];
    f.chain_ns += d, longest = std::max(longest, d);
    f.sized = f.sized && chain[i].bytes > 0 && chain[i].written > 0;
    f.bytes += chain[i].bytes;
    if (i + 1 < chain.size()) intermediate += 2 * chain[i].written;
  }
  double fused = static_cast<double>(longest);
  if (f.sized && f.chain_ns > 0) {
    double compulsory = std::clamp(f.bytes - intermediate, chain.back().written, f.bytes);
    f.saved = f.bytes - compulsory;
    fused = compulsory / (f.bytes / static_cast<double>(f.chain_ns));
  }
  f.ns =
      std::clamp(static_cast<int64_t>(fused), std::min(kKernelFixedCostNs, f.chain_ns), f.chain_ns);
  return f;
}

void Emit(const Context& c, Claims& claims, const std::string& python, const Group& g,
          std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& first = g.chains.front();
  Candidate cand{Make(c, "fusion", 0), {}};
  Finding& f = cand.finding;
  f.where.python = python;
  f.where.op = ChainText(t, first);
  f.where.kernel = std::string(t.str(t.kernels.name[first.front().kernel]));
  std::vector<RowId> host_ops;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (size_t ci = 0; ci < g.chains.size(); ++ci) {
    const auto& chain = g.chains[ci];
    cand.fix.kernel_dur.emplace_back(chain.front().kernel, g.fused_ns[ci]);
    claims.TakeKernel(chain.front().kernel);
    for (size_t i = 1; i < chain.size(); ++i) {
      const Member& m = chain[i];
      claims.TakeKernel(m.kernel);
      cand.fix.kernels_removed.push_back(m.kernel);
      RowId l = t.kernels.launch[m.kernel];
      if (m.op != kNoRow) {
        host_ops.push_back(m.op);
      } else if (l != kNoRow && !IsGraphLaunchApi(t.str(t.api.name[l]))) {
        cand.fix.api_dur.emplace_back(l, 0);
      }
    }
    int64_t s = t.kernels.start_ns[chain.front().kernel];
    spans.emplace_back(t.kernels.end_ns(chain.back().kernel) - s, s);
  }
  RemoveHostOps(t, host_ops, cand.fix, claims);
  f.detail = base::Counted(g.chains.size(), "chain", "chains") + " of " +
             base::FormatCount(first.size()) + " kernels (" +
             c.PerIterationText(static_cast<double>(g.chains.size())) + "), " +
             base::FormatDuration(g.gpu_ns) + " on the GPU, " +
             base::FormatFixed(c.BusyPercent(g.gpu_ns), 1) + "% of its busy time";
  if (g.sized == g.chains.size() && g.bytes > 0) {
    f.detail += "; a fused kernel moves " +
                base::FormatBytes(static_cast<int64_t>(g.bytes - g.saved_bytes)) + " instead of " +
                base::FormatBytes(static_cast<int64_t>(g.bytes));
  } else {
    f.detail += "; shapes not recorded: the fused kernel priced as the chain's longest kernel";
  }
  cand.fix.what = "each chain runs as one kernel: its compulsory bytes at the chain's bandwidth";
  size_t keep = std::min(spans.size(), c.o().evidence);
  std::partial_sort(spans.begin(), spans.begin() + static_cast<long>(keep), spans.end(),
                    [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < keep; ++i)
    AddEvidence(c, f, spans[i].second, spans[i].first, "chain " + f.where.op);
  out.push_back(std::move(cand));
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  OpWorkCache work(t);
  LargestTensors largest(t, LargestTensor);
  const size_t min_kernels = static_cast<size_t>(std::max(2.0, c.o().fusion_min_kernels));
  std::map<std::pair<model::StringId, std::vector<model::StringId>>, Group> groups;
  std::unordered_map<model::TrackId, std::vector<Member>> open;  // per stream
  auto close = [&](std::vector<Member>& chain) {
    if (chain.size() >= min_kernels && chain.size() <= kMaxChainKernels) {
      std::vector<model::StringId> labels;
      for (const Member& m : chain) labels.push_back(m.label);
      Group& g = groups[{chain.front().python, std::move(labels)}];
      Fused f = FuseChain(t, chain);
      g.gpu_ns += f.chain_ns, g.bytes += f.bytes, g.saved_bytes += f.saved;
      g.sized += f.sized;
      g.fused_ns.push_back(f.ns);
      g.chains.push_back(std::move(chain));
    }
    chain.clear();
  };
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    if (!c.GpuIn(t.kernels.start_ns[k], t.kernels.launch[k])) continue;
    std::vector<Member>& chain = open[t.kernels.track[k]];
    Member m;
    RowId launch = t.kernels.launch[k];
    if (claims.KernelTaken(k) || (launch != kNoRow && claims.ApiTaken(launch)) ||
        !Classify(c, k, work, largest, &m)) {
      close(chain);
      continue;
    }
    // One Python line launches the chain from one thread; a kernel from elsewhere starts another.
    if (!chain.empty()) {
      const Member& last = chain.back();
      RowId la = t.kernels.launch[last.kernel], lb = t.kernels.launch[k];
      bool same_thread = la == kNoRow || lb == kNoRow || t.api.track[la] == t.api.track[lb];
      bool passes = m.numel == 0 || last.numel == 0 || m.numel == last.numel;
      // Kernels of one op are its implementation (a foreach op's storm: launch-bound's), not a
      // chain of ops.
      bool same_op = m.op != kNoRow && m.op == last.op;
      bool follows = t.kernels.start_ns[k] - t.kernels.end_ns(last.kernel) <= kMaxChainGapNs;
      if (m.python != last.python || !same_thread || (m.op == kNoRow) != (last.op == kNoRow) ||
          !passes || same_op || !follows)
        close(chain);
    }
    chain.push_back(m);
  }
  for (auto& [track, chain] : open) close(chain);
  const double floor = c.o().fusion_share / 100.0 * static_cast<double>(c.busy_ns());
  std::vector<
      std::pair<const std::pair<model::StringId, std::vector<model::StringId>>*, const Group*>>
      sorted;
  for (const auto& [key, g] : groups) {
    if (static_cast<double>(g.gpu_ns) >= floor && g.gpu_ns > 0) sorted.emplace_back(&key, &g);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](auto& a, auto& b) { return a.second->gpu_ns > b.second->gpu_ns; });
  if (sorted.size() > kMaxChains) sorted.resize(kMaxChains);
  for (const auto& [key, g] : sorted)
    Emit(c, claims, key->first == 0 ? std::string() : std::string(t.str(key->first)), *g, out);
}

}  // namespace
}  // namespace fusion_rule

const RuleInfo& FusionRule() {
  static const RuleInfo rule{
      .id = "fusion",
      .title = "Chains of memory-bound kernels that one fused kernel would replace",
      .definition =
          "At least --fusion-min-kernels kernels in a row on one stream, each launched by a "
          "memory-bound framework op (the elementwise, activation-and-mul, normalization and "
          "softmax work models: add, mul, gelu, silu, rsqrt, layer_norm, softmax ...; without ops, "
          "PyTorch's elementwise kernels by name), from one thread and one user Python line, with "
          "no other kernel between them on the stream, each starting at most 500 us after the one "
          "before it ends, and, where shapes are recorded, tensors of one size (a chain passes "
          "one tensor along). Chains of the same ops from the same line "
          "are one finding when their GPU time reaches --fusion-share percent of the GPU's busy "
          "time (the five largest). Bytes come from the recorded shapes: a fused kernel moves "
          "every member's bytes less each intermediate result written and read back.",
      .impact =
          "replayed: each chain runs as one kernel - its compulsory bytes at the bandwidth the "
          "chain reached (without shapes: as long as its longest kernel), never shorter than a "
          "kernel's fixed cost - the other kernels, their launches and their ops' host time (at "
          "most the place's median op) are gone.",
      .advice =
          "Fuse the chain: torch.compile the module (Inductor fuses pointwise ops, norms and "
          "softmax into one kernel), or call the fused op (F.gelu(approximate=\"tanh\") instead of "
          "its formula, F.rms_norm, F.scaled_dot_product_attention, a fused bias and activation "
          "epilogue).",
      .options = {{"--fusion-min-kernels", "shortest chain reported (kernels)", 3,
                   [](AnalyzeOptions& o, double v) { o.fusion_min_kernels = v; }},
                  {"--fusion-share",
                   "GPU time of a chain that is reported (% of the GPU's busy time)", 1,
                   [](AnalyzeOptions& o, double v) { o.fusion_share = v; }}},
      .detect = &fusion_rule::Detect,
      .runtime_advice =
          "Fuse the kernels: one kernel that reads the chain's inputs once, does its arithmetic in "
          "registers and writes the result once (a CUTLASS epilogue, a hand-written fused kernel).",
      .limits =
          "kernels already fused (Triton, custom fused ops), several kernels of one op (a foreach "
          "op's storm is launch-bound's), runs of more than 32 kernels (a loop over many tensors, "
          "an optimizer's per-parameter updates: cpu-op-storm's and launch-bound's), GEMMs, "
          "convolutions, attention, reductions and copies (device-copy's); chains broken by "
          "another kernel on the stream, a gap of more than 500 us (the host did other work "
          "between the ops: kernels that do not follow each other) or launched from two Python "
          "lines; it reads adjacency and "
          "sizes, not data flow: two independent elementwise ops on tensors of one size from one "
          "line count as a chain, and without recorded shapes any neighbours do (an optimizer's "
          "per-parameter updates: a foreach or fused optimizer is their fix); a chain split across "
          "streams."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
