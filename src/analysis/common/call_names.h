#pragma once
// What a runtime call, op or range is, from its name (CUDA and HIP spell them alike): the one
// place the analyses (the rules, the dependency graph, the critical path) classify names.

#include <string_view>

namespace gpuscope::analysis {

// cuda/hipStreamSynchronize, DeviceSynchronize, EventSynchronize.
inline bool IsSyncApi(std::string_view n) {
  return n.find("Synchronize") != std::string_view::npos;
}
// cudaMemcpy*, hipMemcpy*, cuMemcpy*, hipMemcpyWithStream ...
inline bool IsCopyApi(std::string_view n) {
  return n.find("Memcpy") != std::string_view::npos || n.find("memcpy") != std::string_view::npos;
}
// cudaMemcpy, hipMemcpy, hipMemcpyWithStream: a copy call that is not asynchronous (it blocks
// the host until its copy is done).
inline bool IsBlockingCopyApi(std::string_view n) {
  return IsCopyApi(n) && n.find("Async") == std::string_view::npos;
}
// cudaLaunchKernel, hipModuleLaunchKernel, cudaGraphLaunch ...
inline bool IsLaunchApi(std::string_view n) { return n.find("Launch") != std::string_view::npos; }
// cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch: one call that replays a captured graph.
inline bool IsGraphLaunchApi(std::string_view n) {
  return n.find("GraphLaunch") != std::string_view::npos;
}
// The device allocator's calls: cudaMalloc/cudaFree, their Async and host variants, hipMalloc,
// hipExtMallocWithFlags, cuMemAlloc/cuMemFree, memory pools, host registration.
inline bool IsAllocatorApi(std::string_view n) {
  for (std::string_view s :
       {"Malloc", "Free", "HostAlloc", "HostRegister", "MemPool", "MemAlloc"}) {
    if (n.find(s) != std::string_view::npos) return true;
  }
  return false;
}
// A free that is not stream-ordered (cudaFree, hipFree, cuMemFree, cudaFreeHost): the runtime
// synchronizes the device before it returns.
inline bool IsDeviceFreeApi(std::string_view n) {
  return n.find("Free") != std::string_view::npos && n.find("Async") == std::string_view::npos;
}
// A collective's kernel: NCCL's and RCCL's (ncclKernel_*, ncclDevKernel_*, rccl*).
inline bool IsCommKernelName(std::string_view n) {
  return n.starts_with("nccl") || n.starts_with("rccl") ||
         n.find("ncclKernel") != std::string_view::npos ||
         n.find("ncclDevKernel") != std::string_view::npos;
}
// .item() / .cpu() / .tolist(): the op that copies a value to the host and waits for it.
inline bool IsItemOp(std::string_view n) {
  return n == "aten::item" || n == "aten::_local_scalar_dense";
}
// A torch.compile region: Dynamo's "Torch-Compiled Region: 0/1", AOTAutograd's
// CompiledFunction, Inductor's "## Call CompiledFxGraph ... ##".
inline bool IsCompiledRegion(std::string_view n) {
  return n.find("Torch-Compiled Region") != std::string_view::npos ||
         n.find("CompiledFunction") != std::string_view::npos ||
         n.find("CompiledFxGraph") != std::string_view::npos;
}
// The data loader's ranges (enumerate(DataLoader)#..., any range naming DataLoader).
inline bool IsDataLoaderRange(std::string_view n) {
  return n.find("DataLoader") != std::string_view::npos ||
         n.find("dataloader") != std::string_view::npos;
}

// Framework ops that compute nothing: allocations, aliases and views of a whole tensor, a
// stream's bookkeeping (aten::empty, aten::view, aten::detach, aten::record_stream). A flood of
// them is the plumbing around model code (a custom autograd Function, an all-to-all's buffers),
// never a loop over elements (whose select / item / compare ops compute).
inline bool IsBookkeepingOp(std::string_view n) {
  for (std::string_view op :
       {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::view", "aten::detach",
        "aten::detach_", "aten::alias", "aten::as_strided", "aten::_reshape_alias",
        "aten::record_stream", "aten::set_", "aten::resize_", "aten::lift_fresh",
        "aten::_has_compatible_shallow_copy_type", "detach", "detach_"})
    if (n == op) return true;
  return false;
}

}  // namespace gpuscope::analysis
