#include "model/device_values.h"

#include <string>

#include "base/utf8.h"
#include "model/problems.h"

namespace gpuscope::model {
namespace {

void Devices(Trace& t) {
  for (Device& d : t.devices) {
    std::string bad;
    if (d.compute_units < 0 || d.compute_units > kMaxComputeUnits) {
      bad = std::to_string(d.compute_units) + " compute units";
      d.compute_units = 0;
    }
    if (d.warp_size != 0 && d.warp_size != 32 && d.warp_size != 64) {
      bad += (bad.empty() ? "" : ", ") + std::string("warp size ") + std::to_string(d.warp_size);
      d.warp_size = 0;
    }
    if (d.total_memory < 0 || d.total_memory > kMaxDeviceMemory) {
      bad += (bad.empty() ? "" : ", ") + std::to_string(d.total_memory) + " bytes of memory";
      d.total_memory = 0;
    }
    if (bad.empty()) continue;
    t.problems.Add(ProblemKind::kImpossibleDeviceProperty,
                   "device " + std::to_string(d.id) + ": " + bad + "; kept as unknown");
  }
}

// One problem per kernel with any impossible launch value; the values become unknown.
void Launches(Trace& t) {
  KernelTable& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    const Dim3& b = k.block[i];
    const uint64_t threads = uint64_t{b[0]} * b[1] * b[2];
    std::string bad;
    if (threads > kMaxBlockThreads) {
      bad = "a block of " + std::to_string(threads) + " threads";
      k.block[i] = {0, 0, 0};
    }
    if (k.registers[i] > kMaxRegistersPerThread) {
      bad += (bad.empty() ? "" : ", ") + std::to_string(k.registers[i]) + " registers per thread";
      k.registers[i] = 0;
    }
    if (k.shared_mem[i] > kMaxSharedMemPerBlock) {
      bad +=
          (bad.empty() ? "" : ", ") + std::to_string(k.shared_mem[i]) + " bytes of shared memory";
      k.shared_mem[i] = 0;
    }
    if (bad.empty()) continue;
    t.problems.Add(ProblemKind::kImpossibleLaunchShape,
                   "kernel '" + base::EscapeControl(t.str(k.name[i]).substr(0, 60)) + "': " + bad +
                       "; kept with these unknown");
  }
}

}  // namespace

void CheckDeviceValues(Trace& t) {
  Devices(t);
  Launches(t);
}

}  // namespace gpuscope::model
