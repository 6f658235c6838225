#pragma once
// The collectives (NCCL/RCCL) one rank ran: each communication kernel with what its op recorded
// about it (PyTorch's record_param_comms: collective, process group, message size, dtype,
// sequence number) or, without such an op, what the kernel's name says.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/call_names.h"  // IsCommKernelName
#include "model/trace.h"

namespace gpuscope::analysis {

// One collective as one rank ran it: its communication kernel(s) on the rank's own clock.
struct CollectiveCall {
  size_t kernel = 0;  // KernelTable row of its (first) kernel
  int64_t start_ns = 0, end_ns = 0;
  std::string name;    // "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast", ...
  std::string group;   // process group name; "" = not recorded
  std::string dtype;   // as recorded ("Float", "BFloat16"; the kernel's type without an op)
  int64_t bytes = -1;  // message size as nccl-tests counts it; -1 = not recorded
  int64_t group_size = -1;  // ranks in the group; -1 = not recorded
  int64_t seq = -1;         // the group's sequence number (PyTorch >= 2.4); -1 = not recorded
  bool operator==(const CollectiveCall&) const = default;
};

// The rank's collectives in time order. Kernels launched under one op are one call.
std::vector<CollectiveCall> FindCollectives(const model::Trace& t);

// "allreduce" from "allreduce", "all_reduce", "_allgather_base", "reduce_scatter_tensor", ...
std::string NormalCollectiveName(std::string_view recorded);

// Bytes per element of a recorded dtype ("Float" 4, "BFloat16" 2, ...); 0 when unknown.
int64_t DtypeBytes(std::string_view dtype);

// nccl-tests' bus bandwidth factor (busbw = algbw x factor) for a collective over n ranks:
// allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n; others 1.
double BusBandwidthFactor(std::string_view collective, int64_t n);

}  // namespace gpuscope::analysis
