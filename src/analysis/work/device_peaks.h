#pragma once
// Device peaks: what each GPU can do at most, from the vendors' data sheets, for the roofline
// (analysis/roofline/roofline.h). Dense figures (no 2:4 sparsity), per device as the runtime
// numbers it (one MI250X GCD, one MI300X in SPX mode), at the boost / peak engine clock. Every
// entry names the document its numbers come from. The figures are data: work/devices.tsv.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The number formats a peak is given for. Matmul peaks use the matrix units (tensor cores,
// matrix cores); kElementwise-like work uses the vector FP32 rate.
enum class Precision { kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kInt8 };
inline constexpr Precision kPrecisions[] = {Precision::kFp64, Precision::kFp32, Precision::kTf32,
                                            Precision::kBf16, Precision::kFp16, Precision::kFp8,
                                            Precision::kInt8};
std::string_view PrecisionName(Precision p);  // "fp64", "bf16", ...

struct DevicePeaks {
  std::string_view key;       // "MI300X": what --device takes
  std::string_view name;      // "AMD Instinct MI300X"
  std::string_view patterns;  // '|'-separated, lower case: what the trace's name may contain
  model::Vendor vendor = model::Vendor::kUnknown;
  std::string_view arch;          // AMD's architecture ("gfx942"); empty for NVIDIA
  int compute_units = 0;          // SMs / CUs per device as the runtime sees it
  int clock_mhz = 0;              // boost / peak engine clock the peaks assume
  double memory_gb = 0;           // HBM capacity per device
  double hbm_tbps = 0;            // peak memory bandwidth, TB/s (10^12 B/s)
  double vector_fp32_tflops = 0;  // non-matrix FP32 (elementwise work)
  // Matrix-unit dense peaks, TFLOP/s (TOP/s for int8); 0 = the device has none for it.
  double fp64 = 0, fp32 = 0, tf32 = 0, bf16 = 0, fp16 = 0, fp8 = 0, int8 = 0;
  std::string_view source;         // the data sheet
  double Peak(Precision p) const;  // TFLOP/s for matrix work in p
};

// Every device gpuscope knows, newest family first: the table work/devices.tsv, compiled in.
const std::vector<DevicePeaks>& KnownDevices();
// Reads a table in devices.tsv's form (lines starting with '#' and empty ones skipped, then the
// header, then a device per line); its names are views of `tsv`. An error names the first line
// that does not read.
base::StatusOr<std::vector<DevicePeaks>> ParseDeviceTable(std::string_view tsv);

// The device entry for a name given by the user (--device): its key or the trace's name for it,
// case-insensitive ("mi300x", "AMD Instinct MI300X", "h100-sxm"). nullptr when unknown.
const DevicePeaks* FindDevice(std::string_view name);

struct DeviceMatch {
  const DevicePeaks* peaks = nullptr;  // nullptr: not identified
  std::string how;  // "named in the trace", "by compute units and memory (the trace names ...)"
};

// The AMD architecture of a trace's device: a "gfx..." in its name, else (AMD, a name such as
// "" or "AMD Radeon Graphics") from the compute capability HIP reports (9.0 gfx90a, 9.4 gfx942,
// 9.5 gfx950). Empty when neither says.
std::string ArchitectureOf(const model::Device& d);

// The known devices of that architecture with the trace's compute units and memory (each when
// the trace gives it), in table order; empty without an architecture or when none fits.
std::vector<const DevicePeaks*> ByArchitecture(const model::Device& d);

// A name for an AMD device that the trace leaves unnamed ("", a bare "gfx942", a reader's
// placeholder) from its architecture, compute units and memory: "AMD Instinct MI300X (gfx942,
// 304 CUs)", "AMD Instinct MI355X or MI350X (gfx950, 256 CUs)". Empty when nothing fits.
std::string NameFromArchitecture(const model::Device& d);

// Identifies a trace's device: by its name, else by its architecture, else (AMD traces often write
// "" or a marketing name such as "AMD Radeon Graphics") by vendor, compute-unit count and memory
// when only one known device has them.
DeviceMatch IdentifyDevice(const model::Device& d);

}  // namespace gpuscope::analysis
