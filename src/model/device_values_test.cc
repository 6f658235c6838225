#include "model/device_values.h"

#include <gtest/gtest.h>

namespace gpuscope::model {
namespace device_values_test {  // this file's helpers, apart in a unity build
namespace {

uint64_t Count(const Trace& t, const char* kind) {
  auto it = t.problems.entries().find(kind);
  return it == t.problems.entries().end() ? 0 : it->second.count;
}

KernelRow Kernel(Trace& t, Dim3 block, uint32_t registers, uint32_t shared) {
  KernelRow r;
  r.start_ns = 1000, r.dur_ns = 10;
  r.name = t.strings.Intern("gemm");
  r.track = t.InternTrack(TrackKind::kGpuStream, "0", "7");
  r.block = block, r.registers = registers, r.shared_mem = shared;
  return r;
}

TEST(DeviceValues, RealDevicesAndLaunchesAreUntouched) {
  Trace t;
  t.devices.push_back({0, "AMD Instinct MI355X", Vendor::kAmd, 288LL << 30, 256, 64, 9, 5});
  t.devices.push_back({1, "NVIDIA B200", Vendor::kNvidia, 180LL << 30, 148, 32, 10, 0});
  t.kernels.Append(Kernel(t, {1024, 1, 1}, 512, 160 << 10));
  t.kernels.Append(Kernel(t, {32, 32, 1}, 255, 228 << 10));
  CheckDeviceValues(t);
  EXPECT_TRUE(t.problems.entries().empty());
  EXPECT_EQ(t.devices[0].compute_units, 256);
  EXPECT_EQ(t.kernels.registers[1], 255u);
}

TEST(DeviceValues, ImpossibleValuesBecomeUnknownAndAreCounted) {
  Trace t;
  t.devices.push_back({0, "gpu", Vendor::kAmd, int64_t{1} << 60, 1'000'000'000, 48, 9, 4});
  t.kernels.Append(Kernel(t, {1024, 2, 1}, 4294967295u, 64));
  t.kernels.Append(Kernel(t, {64, 1, 1}, 32, 1u << 30));
  t.kernels.Append(Kernel(t, {64, 1, 1}, 32, 1024));
  CheckDeviceValues(t);
  EXPECT_EQ(Count(t, "impossible.device_property"), 1u);
  EXPECT_EQ(t.devices[0].compute_units, 0);
  EXPECT_EQ(t.devices[0].warp_size, 0);
  EXPECT_EQ(t.devices[0].total_memory, 0);
  EXPECT_EQ(Count(t, "impossible.launch_shape"), 2u);
  EXPECT_EQ(t.kernels.block[0], (Dim3{0, 0, 0}));
  EXPECT_EQ(t.kernels.registers[0], 0u);
  EXPECT_EQ(t.kernels.shared_mem[1], 0u);
  EXPECT_EQ(t.kernels.shared_mem[2], 1024u);  // a plausible kernel keeps its values
}

}  // namespace
}  // namespace device_values_test
}  // namespace gpuscope::model
