#include "analysis/rules.h"

namespace gpuscope::analysis {

const std::vector<RuleInfo>& Rules() {
  static const std::vector<RuleInfo> rules = {
      {"gpu-idle", "GPU idle gaps in the steady state",
       "Gaps between GPU work (kernels and copies, all streams of a device merged) inside the "
       "steady-state "
       "window, at least the threshold long. Each gap is classified by what the host was doing "
       "meanwhile, by "
       "the largest overlap: blocked in a synchronization (cuda/hipStreamSynchronize, "
       "DeviceSynchronize, "
       "EventSynchronize, aten::item), in a memory-copy call, in a CPU op (named), in Python code "
       "between ops "
       "(the innermost user frame), or launching late (the next GPU op's launch call started after "
       "the GPU went idle); one finding per cause, "
       "for the (at most 5) causes that cost at least 1% of the window.",
       "--idle-gap-us 20",
       "replayed: the host work during those gaps (on the thread that launched the work ending "
       "them) removed. Gaps that lie mostly inside a sync, a blocking copy, the data loader or a "
       "storming loop belong to that finding and are not counted here.",
       "Remove the host work from the critical path: drop per-step syncs (.item(), .cpu(), "
       ".tolist()), prepare "
       "inputs ahead (DataLoader(num_workers>0, pin_memory=True) + .to(device, "
       "non_blocking=True)), and capture "
       "the step with CUDA/HIP graphs or torch.compile(mode=\"reduce-overhead\") to cut launch "
       "gaps."},
      {"launch-bound", "Storms of tiny kernels bound by their launch cost",
       "Kernels shorter than the threshold whose launch call took longer than the kernel itself, "
       "in the steady "
       "state, when the GPU idled right before them. Names the ops/frames that launch them and the "
       "kernels with "
       "the most calls per iteration.",
       "--tiny-kernel-us 10",
       "replayed: those kernels' launch calls cost nothing and the kernels follow each other "
       "without launch latency (graph capture / fusion); kernel time kept.",
       "Fuse the small ops: torch.compile, fused/foreach optimizers, vectorised tensor ops instead "
       "of per-element "
       "ones, larger batches; CUDA/HIP graphs remove the per-launch cost."},
      {"cpu-op-storm", "A flood of tiny CPU ops from one place per iteration",
       "The innermost Python frame that calls framework ops itself (the loop body, not a model's "
       "forward reaching them through submodules; not the script's top level or a frame spanning "
       "whole iterations) issues more than the threshold of ops per iteration and per call, each "
       "shorter than --tiny-op-us: the per-element Python loop (select / item / mul / gt ...). "
       "Without Python stacks, one user annotation (such as Optimizer.step) per iteration. Only "
       "ops called from Python or a user range count, not the child ops a framework op "
       "(namespaced: aten::...) runs inside itself. Fires with or without a GPU.",
       "--storm-ops 50 (ops per iteration), --tiny-op-us 50",
       "replayed: each call's host time scaled down to that of one op (a vectorised version); the "
       "GPU work it launches is kept. Saves only while that host time is on the critical path.",
       "Vectorise the loop: one tensor expression (torch.where, masks, broadcasting) instead of a "
       "Python loop "
       "over elements; or torch.compile the function."},
      {"host-sync", "Host synchronizations inside the steady state",
       "aten::item / aten::_local_scalar_dense (from .item(), .cpu(), .tolist(), nonzero) and "
       "explicit "
       "synchronizations (cuda/hipStreamSynchronize, cuda/hipDeviceSynchronize, "
       "cuda/hipEventSynchronize) inside "
       "the steady window, paired with the small device-to-host copy launched inside them. Listed "
       "even when "
       "cheap (on a CPU-only run an .item() costs microseconds; on a GPU it drains the pipeline).",
       "always on",
       "replayed: the calls no longer wait for the GPU (the value stays on the device). A sync "
       "that waited for nothing (a double-buffered event sync) saves nothing.",
       "Keep values on the device (compare tensors instead of calling .item()), move "
       "logging/metrics off the "
       "step or do them every N steps, and replace explicit synchronize calls by stream events."},
      {"data-loading", "The input pipeline runs on the thread that feeds the GPU",
       "CPU ranges of the data loader (enumerate(DataLoader)#..., any range naming DataLoader) "
       "inside the steady window: the batch is read, decoded and collated by the "
       "training/inference "
       "thread itself (DataLoader(num_workers=0)).",
       "always on",
       "replayed: the loader's host time leaves the thread (workers prepare the batches ahead); "
       "the copies it issues are kept.",
       "DataLoader(num_workers>0, pin_memory=True, persistent_workers=True, prefetch_factor=2..4); "
       "move decoding/augmentation to the workers or the GPU."},
      {"memcpy-in-loop", "Host <-> device copies in every iteration",
       "HtoD and DtoH copies inside steady-state iterations.", "always on",
       "replayed: the copies move to a side stream, issued ahead (prefetch): the work after them "
       "on their stream no longer waits for them and the host does not wait either.",
       "Move data once: keep model inputs/weights on the device, prefetch the next batch while "
       "this one runs "
       "(DataLoader(pin_memory=True) + .to(device, non_blocking=True) on a side stream)."},
      {"memcpy-sync", "Copies that block the host",
       "Copies launched by a synchronous API (cudaMemcpy, hipMemcpy, hipMemcpyWithStream, ...: no "
       "'Async' in the "
       "name), by an async API from/to pageable memory (synchronous in practice), or by an async "
       "API whose next "
       "call on the same thread is a synchronize (stream/device/event).",
       "always on",
       "replayed: the host no longer waits for these copies (pinned + non_blocking); pageable ones "
       "run at the pinned bandwidth measured in the same trace (else at half their time).",
       "Use pinned host memory and async copies: tensor.pin_memory() / DataLoader(pin_memory=True) "
       "and "
       ".to(device, non_blocking=True)."},
      {"memcpy-pageable", "Copies from or to pageable memory",
       "HtoD/DtoH copies whose host side the trace records as pageable (CUDA traces, nsys memory "
       "kinds). ROCm "
       "tracers do not record pinning: there the summary says 'unknown' and this rule stays "
       "silent.",
       "always on",
       "replayed: the copies run at the pinned bandwidth measured in the same trace, else at half "
       "their time (pageable copies are staged through a pinned buffer, typically at about half "
       "the pinned bandwidth).",
       "Pin the host buffers: DataLoader(pin_memory=True), tensor.pin_memory(), "
       "cudaHostAlloc/hipHostMalloc."},
      {"small-memcpy", "Many small copies per iteration",
       "More than the threshold of copies smaller than --small-copy-kb per iteration.",
       "--small-copies 8 (per iteration), --small-copy-kb 64",
       "replayed: every copy call but the first of each iteration costs nothing (one batched "
       "copy); the copies' GPU time is kept.",
       "Batch the small tensors into one buffer (torch.cat / a preallocated staging tensor) and "
       "copy once."},
      {"kernel-outlier", "Kernel instances much slower than their siblings",
       "Instances of one kernel (same name, grid and block, launched by the same op from the same "
       "user frame: the model has no input shapes; at least 5 in the steady state) slower "
       "than "
       "median + max(5 x 1.4826 x MAD, 0.5 x median): robust to the spread of normal runs.",
       "--outlier-mads 5", "replayed: the outlier instances run at the median.",
       "Look at what ran at the same time (other streams, other processes, clocks/thermals, memory "
       "allocation or autotuning inside the step); pin clocks when benchmarking."},
      {"kernel-hotspot", "Kernels that dominate GPU time",
       "Kernels holding at least the threshold share of the steady-state GPU kernel time. "
       "Information: where "
       "optimisation effort pays.",
       "--hotspot-percent 10", "0 (information).",
       "Check that these kernels run at the expected throughput (roofline: FLOPs and bytes against "
       "the device's "
       "peak); try a better algorithm/library, mixed precision or torch.compile."},
      {"low-utilization", "Low GPU utilization in the steady state",
       "The share of the steady window during which each GPU runs work (kernels or copies, streams "
       "merged) is "
       "below the threshold; the idle time is split by cause as in gpu-idle.",
       "--low-utilization-percent 50",
       "0 (the recoverable part is reported by gpu-idle and the other rules).",
       "Find what the host does while the GPU waits (the idle split, gpu-idle, host-sync, "
       "cpu-op-storm) and "
       "overlap it with GPU work; batch more work per launch."},
  };
  return rules;
}

const RuleInfo* FindRule(std::string_view id) {
  for (const auto& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string_view SeverityFor(double pct) {
  if (pct >= 10) return "high";
  if (pct >= 3) return "medium";
  return "low";
}

}  // namespace gpuscope::analysis
