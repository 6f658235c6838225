#include "render/terms.h"

#include "output/text_table.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {
namespace {

struct Term {
  const char* group;  // where the word appears
  const char* word;
  const char* meaning;
};

// One entry per word an output prints; the groups follow the order of `analyze`'s output.
constexpr Term kTerms[] = {
    {"run", "window",
     "the span analyzed: the steady state (iterations after warm-up) when steps are known, else "
     "the whole trace"},
    {"run", "steady part",
     "the window less its one-time costs (module loading, a TorchScript first run, ops' first "
     "calls, set-up calls, compilation) and the recording's start when the GPU still ran work "
     "the trace does not hold (a profiler started mid-step, a stream waiting on an event "
     "recorded elsewhere: the early op's wait and the host's work beside it): what the "
     "verdict, the critical path, the stalls and every finding but "
     "warm-up are about; `analyze` says what it left out"},
    {"run", "steady state",
     "the iterations after warm-up (first calls, compilation, caches filling); --steady keeps only "
     "them"},
    {"run", "step / iteration",
     "one pass of the program's loop: ProfilerStep#N, a serving framework's step annotation, a "
     "repeated annotation or Python frame, or alike kernel blocks that a data-loader call, a "
     "synchronization or a graph launch separates; it runs to the next step's start (the "
     "scheduling around an annotated forward is part of it)"},
    {"run", "phase", "steps of one kind in a serving trace: prefill, decode or mixed"},
    {"run", "in <phase> steps",
     "what a fix of the run saves in one phase's steps: the run replayed once with the fix, each "
     "step from its start (not before the step before it is done) until the host reached its "
     "end and the GPU finished the work it launched; the share is of those steps' replayed "
     "time. Steps that follow each other without a pause tile the run: a fix's savings over "
     "the phases then add up to its impact unless it slows some steps while it speeds others"},
    {"run", "GPU busy", "the share of the window in which a GPU runs a kernel or a copy"},
    {"run", "kernel category",
     "what a kernel does (gemm, attention, conv, norm, fused, elementwise, reduction, copy, "
     "communication, other), decided from its name and launching op by the table `gpuscope help "
     "categories` shows; copies and memsets count as copy"},
    {"run", "self time", "an op's or call's time minus the time of the ops and calls inside it"},
    {"verdict", "GPU-bound",
     "the GPU is busy at least 80% of the window, or busy and in dispatch gaps before queued "
     "work together (many short kernels: fewer, larger kernels help): faster kernels help most"},
    {"verdict", "CPU-bound",
     "the GPU idles more than half the window waiting for the host: host-side fixes help most"},
    {"verdict", "mixed", "the GPU is busy 50-80% of the window: both sides matter"},
    {"verdict", "copy-bound",
     "copies hold more than half of the GPU's busy time (the verdict names the kind, count and "
     "bytes of the largest): fewer or overlapped copies help most"},
    {"verdict", "CPU only", "the trace holds no GPU work (or the GPU activity was not recorded)"},
    {"verdict", "no GPU work recorded",
     "an Nsight Systems export without kernels or copies: the CUDA trace was not collected, "
     "or the program made CUDA calls but ran no GPU work while traced"},
    {"verdict", "no host event",
     "GPU work without any host event: the GPU's idle time is measured, its cause unknown"},
    {"verdict", "copies only", "the GPU ran copies but no kernels in the window"},
    {"verdict", "incomplete trace",
     "a health note says the trace lost or bent what a verdict would rest on (GPU work the host "
     "waited for is missing, or times cannot be real): the verdict says which note and which "
     "part of the trace can still be trusted; findings on the impossible times are not priced"},
    {"verdict", "one pass",
     "no steps and no kernel that ran 3 times or more while the GPU idles most of the window: one "
     "pass of one-off work (a benchmark of distinct kernels, set-up, compilation), so there is no "
     "steady state to call CPU-bound; gpu-idle is shown but not priced. Profile several "
     "iterations of the work to judge it"},
    {"finding", "impact",
     "the time the run would save if the problem were fixed, priced by replay"},
    {"finding", "standalone saving",
     "what a finding's fix alone would save (before the cap): findings are ranked and graded by "
     "it; \"95 ms alone; 0 after 1-6\" adds what it saves on top of the fixes priced before it"},
    {"finding", "replay",
     "the run's dependency graph (host calls, launches, GPU streams, syncs) re-run with a fix "
     "applied; its length against the observed window is the replay error"},
    {"finding", "severity",
     "high: the fix alone saves at least 10% of the window; medium: at least 3%; low: less; "
     "info: not priced"},
    {"finding", "where",
     "the place to change: Python line > op > kernel, as the trace records them"},
    {"critical path", "critical path",
     "the chain of events that sets the window's length, split by what each piece waited on"},
    {"critical path", "GPU kernels", "kernels running on the critical path"},
    {"critical path", "GPU copies", "copies (host<->device, device<->device) on the critical path"},
    {"critical path", "launch latency",
     "from a launch call to its kernel's start, when the GPU was free and waited for it"},
    {"critical path", "launch calls", "the host's time inside kernel-launch calls"},
    {"critical path", "copy calls", "the host's time inside memory-copy calls"},
    {"critical path", "sync waits",
     "the host blocked in a synchronize (or a blocking copy) until the GPU finished"},
    {"critical path", "other runtime calls", "the host inside other CUDA/HIP runtime calls"},
    {"critical path", "op dispatch",
     "the host inside a framework op (aten::...) outside runtime calls: argument checks, "
     "allocation, dispatch"},
    {"critical path", "CPU op compute",
     "the host inside a framework op (aten::...) in a run without GPU work (a CPU-only run): the "
     "op's own computation"},
    {"critical path", "Python", "host time under Python frames that ran no op"},
    {"critical path", "host work", "host time the trace does not name (no op, no Python frame)"},
    {"critical path", "data loading", "the host waiting for the next batch from a data loader"},
    {"critical path", "thread handoffs", "one host thread waiting for work of another"},
    {"critical path", "untraced waits",
     "the host waiting for GPU work without a call that says so: a thread in no op, frame or "
     "call while the GPU ran the last work it launched on a stream, going on as that work ended "
     "(a spin on a flag the kernel writes, an event poll, a sync the tracer did not record); "
     "the GPU work it waited for is on the path, the rest of its wait is this"},
    {"critical path", "stream waits",
     "a GPU stream waiting for another stream's work: recorded (Kineto's stream-wait events, an "
     "nsys export's stream-wait syncs) or inferred (an op that started late, within 20 us after "
     "another stream's op ended)"},
    {"critical path", "GPU dispatch gaps",
     "the time a queued GPU op (launched while its stream was busy) starts after the op before "
     "it ends: the 1-5 us GPUs leave between back-to-back work, more on some devices"},
    {"critical path", "GPU waits (not in the trace)",
     "gaps longer than a dispatch gap (50 us) before queued GPU work: it waited for something the "
     "trace does not show (an event recorded elsewhere, another process, clocks that disagree)"},
    {"critical path", "GPU gaps (unlinked ops)",
     "gaps between GPU ops whose launches the trace does not link"},
    {"critical path", "before the window",
     "time held by work that started before the window (a kernel queued earlier)"},
    {"idle cause", "host sync", "the GPU idled while the host waited in a synchronize"},
    {"idle cause", "memory copy", "the GPU idled while the host ran a blocking copy"},
    {"idle cause", "CPU op", "the GPU idled while the host ran this op"},
    {"idle cause", "dispatch gap",
     "the op after the gap was already queued (its launch had returned): the gap the GPU "
     "leaves between queued kernels, not the host's doing"},
    {"idle cause", "launch late",
     "the next kernel's launch call came after the GPU went idle: the host was late to launch"},
    {"idle cause", "no GPU work queued",
     "nothing was launched (end of the window, or ops whose launch is not linked)"},
    {"clock", "clock offset",
     "a GPU's ops start before the calls that launched them: CPU and GPU clocks disagree "
     "(--align-clocks)"},
    {"clock", "unexplained delay",
     "launch-to-start times far above the device's usual latency with no queued work to explain "
     "them"},
    {"diff", "faster / slower",
     "the per-iteration latency moved by more than noise (rank test), else no significant change; "
     "without iterations, kernel time per call of the dominant kernel both runs share (totals "
     "when the call counts agree)"},
    {"diff", "not comparable",
     "no iterations and no kernel both runs ran: nothing counts the work, no change is claimed"},
    {"diff", "ratio", "after / before of a row's total time"},
    {"job", "skew / wait", "time a rank waits in a collective for the last rank to arrive"},
    {"job", "transfer", "a collective's time after the last rank arrived: the data moving"},
    {"job", "straggler", "the rank whose late arrivals cost the others most of the waiting"},
    {"job", "algbw / busbw",
     "a collective's bytes per transfer second; busbw scales it as nccl-tests do"},
    {"memory", "allocated",
     "GPU memory held by live tensors, as the framework's allocator counts it (its [memory] "
     "events' Total Allocated); from the runtime's records (rocprofv3, rocpd, nsys), which carry "
     "no totals, the running sum of the trace's allocations and frees"},
    {"memory", "self",
     "stats --by memory: the bytes a place allocated less those it freed (PyTorch's Self CUDA "
     "Mem); negative where a place frees what others allocated"},
    {"memory", "at end",
     "stats --by memory: of the bytes a place allocated, those still allocated when the trace "
     "ends (found by the blocks' addresses)"},
    {"memory", "reserved",
     "GPU memory the caching allocator holds from the driver, in use or cached for reuse"},
    {"memory", "held at the peak by",
     "the blocks alive at the peak of allocated memory, summed by the op and the Python line "
     "that allocated them"},
    {"memory", "grows",
     "allocated memory at each steady step's end never falls and ends higher: a leak (tensors "
     "kept across steps) or growing shapes"},
    {"finding", "data movement",
     "GPU work that only moves or converts data: copies, casts, layout changes, clones, "
     "concatenations (device-copy)"},
    {"finding", "chain",
     "memory-bound kernels one after another from one Python line, each reading what the one "
     "before wrote (fusion)"},
};

}  // namespace

std::string TermsHelp(std::string_view format) {
  ResultTable t({{"group", "Where", Show::kText},
                 {"term", "Term", Show::kText},
                 Column::Flexible("meaning", "Meaning")});
  for (const Term& term : kTerms) {
    t.AddRow({Cell::Text(term.group), Cell::Text(term.word), Cell::Text(term.meaning)});
  }
  if (format == "csv") return t.Csv();
  if (format == "json") return HelpTopicJson("terms", "terms", t);
  if (format == "markdown") {
    std::string out = "# Terms\n\nEvery word gpuscope's outputs use (`gpuscope help terms`).\n";
    std::string group;
    for (const Term& term : kTerms) {
      if (group != term.group) {
        group = term.group;
        out += "\n## " + group + "\n\n";
      }
      out += "- **" + std::string(term.word) + "**: " + term.meaning + "\n";
    }
    return out;
  }
  std::string out;
  std::string group;
  for (const Term& term : kTerms) {
    if (group != term.group) {
      if (!group.empty()) out += '\n';  // not "" + string: GCC 12 misreads it (-Wrestrict)
      out += std::string(term.group) + ":\n";
      group = term.group;
    }
    out += "  " + std::string(term.word) + ": " + term.meaning + "\n";
  }
  return out;
}

}  // namespace gpuscope::render
