#include "analysis/work/device_peaks.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "base/enum_names.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

using model::Vendor;

// The longest of `patterns` contained in `lower_name`; 0 when none is.
size_t LongestPattern(std::string_view patterns, const std::string& lower_name) {
  size_t best = 0;
  while (!patterns.empty()) {
    size_t bar = patterns.find('|');
    std::string_view p = patterns.substr(0, bar);
    if (!p.empty() && lower_name.find(p) != std::string::npos) best = std::max(best, p.size());
    patterns = bar == std::string_view::npos ? std::string_view() : patterns.substr(bar + 1);
  }
  return best;
}

double MemoryGb(const model::Device& d) { return static_cast<double>(d.total_memory) / 1e9; }

// A trace's memory size is what the runtime reports (a little under the marketing figure, or
// in GiB): within 15% counts as the same.
bool SameMemory(double trace_gb, double sheet_gb) {
  return trace_gb <= 0 || std::abs(trace_gb - sheet_gb) <= 0.15 * sheet_gb;
}

constexpr std::string_view kPrecisionNames[] = {"fp64", "fp32", "tf32", "bf16",
                                                "fp16", "fp8",  "int8"};
static_assert(base::NamesEvery(kPrecisionNames, Precision::kInt8));
// The peak of each precision, in the order of Precision.
constexpr double DevicePeaks::*kPeakOf[] = {
    &DevicePeaks::fp64, &DevicePeaks::fp32, &DevicePeaks::tf32, &DevicePeaks::bf16,
    &DevicePeaks::fp16, &DevicePeaks::fp8,  &DevicePeaks::int8};
static_assert(std::size(kPeakOf) == std::size(kPrecisionNames));
}  // namespace

std::string_view PrecisionName(Precision p) { return base::NameOf(kPrecisionNames, p, "?"); }

double DevicePeaks::Peak(Precision p) const {
  const auto i = static_cast<size_t>(p);
  return i < std::size(kPeakOf) ? this->*kPeakOf[i] : 0;
}

// Dense peaks as the data sheets give them (where a sheet gives only "with sparsity" figures,
// half of them); per device as the runtime numbers it.
const std::vector<DevicePeaks>& KnownDevices() {
  // clang-format off
  static const std::vector<DevicePeaks> devices = {
    // key, name, patterns, vendor, CUs, MHz, GB, TB/s, vector fp32,
    // fp64, fp32, tf32, bf16, fp16, fp8, int8 (matrix units), source
    {"MI355X", "AMD Instinct MI355X", "mi355x", Vendor::kAmd, 256, 2400, 288, 8.0, 157.3,
     78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 5033.2,
     "AMD Instinct MI355X GPU data sheet (2025): peak engine clock 2400 MHz, dense matrix figures"},
    {"MI350X", "AMD Instinct MI350X", "mi350x", Vendor::kAmd, 256, 2200, 288, 8.0, 144.2,
     72.1, 144.2, 0, 2306.9, 2306.9, 4613.7, 4613.7,
     "AMD Instinct MI350X GPU data sheet (2025): peak engine clock 2200 MHz, dense matrix figures"},
    {"MI325X", "AMD Instinct MI325X", "mi325x", Vendor::kAmd, 304, 2100, 256, 6.0, 163.4,
     163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9,
     "AMD Instinct MI325X accelerator data sheet (2024), dense matrix figures"},
    {"MI300X", "AMD Instinct MI300X", "mi300x", Vendor::kAmd, 304, 2100, 192, 5.3, 163.4,
     163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9,
     "AMD Instinct MI300X accelerator data sheet (2023), dense matrix figures (SPX mode)"},
    {"MI300A", "AMD Instinct MI300A", "mi300a", Vendor::kAmd, 228, 2100, 128, 5.3, 122.6,
     122.6, 122.6, 490.3, 980.6, 980.6, 1961.2, 1961.2,
     "AMD Instinct MI300A APU data sheet (2023), dense matrix figures"},
    {"MI250X", "AMD Instinct MI250X (one GCD)", "mi250x", Vendor::kAmd, 110, 1700, 64, 1.6384,
     23.95, 47.85, 47.85, 0, 191.5, 191.5, 0, 191.5,
     "AMD Instinct MI250X data sheet (2021), halved: each of its two GCDs is one device"},
    {"MI250", "AMD Instinct MI250 (one GCD)", "mi250", Vendor::kAmd, 104, 1700, 64, 1.6384,
     22.6, 45.25, 45.25, 0, 181.0, 181.0, 0, 181.0,
     "AMD Instinct MI250 data sheet (2021), halved: each of its two GCDs is one device"},
    {"MI210", "AMD Instinct MI210", "mi210", Vendor::kAmd, 104, 1700, 64, 1.6384, 22.6,
     45.3, 45.3, 0, 181.0, 181.0, 0, 181.0,
     "AMD Instinct MI210 accelerator data sheet (2022)"},
    {"B200", "NVIDIA B200", "b200", Vendor::kNvidia, 148, 1965, 180, 8.0, 75.0,
     37.0, 75.0, 1125.0, 2250.0, 2250.0, 4500.0, 4500.0,
     "NVIDIA HGX B200 data sheet (2024): 8-GPU figures / 8, sparse figures / 2"},
    {"H200", "NVIDIA H200 SXM", "h200", Vendor::kNvidia, 132, 1980, 141, 4.8, 67.0,
     67.0, 67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9,
     "NVIDIA H200 Tensor Core GPU data sheet (2024), SXM column, sparse figures / 2"},
    {"H100-SXM", "NVIDIA H100 SXM5 80GB", "h100 80gb hbm3|h100-sxm|h100 sxm|h100",
     Vendor::kNvidia, 132, 1980, 80, 3.35, 67.0,
     67.0, 67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9,
     "NVIDIA H100 Tensor Core GPU data sheet (2023), SXM column, sparse figures / 2"},
    {"H100-96GB", "NVIDIA H100 96GB HBM3", "h100 96gb|h100", Vendor::kNvidia, 132, 1980, 96,
     4.0, 67.0, 67.0, 67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9,
     "NVIDIA GH200 Grace Hopper Superchip data sheet (2023): its H100 with 96 GB HBM3"},
    {"H100-NVL", "NVIDIA H100 NVL", "h100 nvl", Vendor::kNvidia, 132, 1785, 94, 3.9, 60.0,
     60.0, 60.0, 417.5, 835.5, 835.5, 1670.5, 1670.5,
     "NVIDIA H100 Tensor Core GPU data sheet (2023), NVL column, sparse figures / 2"},
    {"H100-PCIe", "NVIDIA H100 PCIe", "h100 pcie", Vendor::kNvidia, 114, 1755, 80, 2.0, 51.0,
     51.0, 51.0, 378.0, 756.0, 756.0, 1513.0, 1513.0,
     "NVIDIA H100 Tensor Core GPU data sheet (2023), PCIe column, sparse figures / 2"},
    {"A100-SXM-80GB", "NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb|a100-sxm|a100 sxm|a100",
     Vendor::kNvidia, 108, 1410, 80, 2.039, 19.5,
     19.5, 19.5, 156.0, 312.0, 312.0, 0, 624.0,
     "NVIDIA A100 Tensor Core GPU data sheet (2021), 80GB SXM column"},
    {"A100-SXM-40GB", "NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb|a100-pg509-200|a100",
     Vendor::kNvidia, 108, 1410, 40, 1.555, 19.5,
     19.5, 19.5, 156.0, 312.0, 312.0, 0, 624.0,
     "NVIDIA A100 Tensor Core GPU data sheet (2021), 40GB SXM column (A100-PG509-200 is "
     "an SXM4 40GB board)"},
    {"A100-PCIe-80GB", "NVIDIA A100 80GB PCIe", "a100 80gb pcie|a100-pcie-80gb",
     Vendor::kNvidia, 108, 1410, 80, 1.935, 19.5,
     19.5, 19.5, 156.0, 312.0, 312.0, 0, 624.0,
     "NVIDIA A100 Tensor Core GPU data sheet (2021), 80GB PCIe column"},
    {"A100-PCIe-40GB", "NVIDIA A100-PCIE-40GB", "a100-pcie-40gb|a100 pcie",
     Vendor::kNvidia, 108, 1410, 40, 1.555, 19.5,
     19.5, 19.5, 156.0, 312.0, 312.0, 0, 624.0,
     "NVIDIA A100 Tensor Core GPU data sheet (2021), 40GB PCIe column"},
    {"V100-SXM2", "NVIDIA Tesla V100 SXM2", "v100-sxm2|v100-dgxs|v100 sxm2|v100",
     Vendor::kNvidia, 80, 1530, 32, 0.9, 15.7,
     7.8, 15.7, 0, 0, 125.0, 0, 0,
     "NVIDIA Tesla V100 GPU data sheet (2020), SXM2 column (DGX Station's V100-DGXS is the "
     "same part)"},
    {"V100-PCIe", "NVIDIA Tesla V100 PCIe", "v100-pcie|v100 pcie", Vendor::kNvidia, 80, 1380, 32,
     0.9, 14.0, 7.0, 14.0, 0, 0, 112.0, 0, 0,
     "NVIDIA Tesla V100 GPU data sheet (2020), PCIe column"},
  };
  // clang-format on
  return devices;
}

const DevicePeaks* FindDevice(std::string_view name) {
  std::string lower = base::AsciiLower(name);
  for (const DevicePeaks& d : KnownDevices()) {
    if (base::AsciiLower(d.key) == lower || base::AsciiLower(d.name) == lower) return &d;
  }
  // "mi300x", "NVIDIA H100 PCIe": the name a trace would give.
  model::Device named;
  named.name = std::string(name);
  return IdentifyDevice(named).peaks;
}

DeviceMatch IdentifyDevice(const model::Device& d) {
  DeviceMatch m;
  std::string lower = base::AsciiLower(d.name);
  double gb = MemoryGb(d);
  // By name: every entry with a pattern in the name, narrowed by the compute-unit count ("AMD
  // Instinct MI250X/MI250" is either), then to the longest pattern, then by memory size
  // ("NVIDIA H100" is 80 or 96 GB).
  std::vector<std::pair<const DevicePeaks*, size_t>> named;
  for (const DevicePeaks& p : KnownDevices()) {
    size_t len = LongestPattern(p.patterns, lower);
    if (len > 0) named.emplace_back(&p, len);
  }
  auto narrow = [&](auto keep) {
    std::vector<std::pair<const DevicePeaks*, size_t>> kept;
    for (const auto& n : named)
      if (keep(n)) kept.push_back(n);
    if (!kept.empty()) named.swap(kept);
  };
  if (named.size() > 1 && d.compute_units > 0)
    narrow([&](const auto& n) { return n.first->compute_units == d.compute_units; });
  size_t best = 0;
  for (const auto& n : named) best = std::max(best, n.second);
  narrow([&](const auto& n) { return n.second == best; });
  if (named.size() > 1 && gb > 0)
    narrow([&](const auto& n) { return SameMemory(gb, n.first->memory_gb); });
  if (!named.empty()) {
    m.peaks = named.front().first;
    m.how = named.size() == 1 ? "named in the trace"
                              : "named in the trace (ambiguous; took the first match)";
    return m;
  }
  // By vendor, compute units and memory, when exactly one entry has them.
  if (d.compute_units <= 0) return m;
  std::vector<const DevicePeaks*> by_shape;
  for (const DevicePeaks& p : KnownDevices()) {
    if ((d.vendor == model::Vendor::kUnknown || d.vendor == p.vendor) &&
        p.compute_units == d.compute_units && SameMemory(gb, p.memory_gb))
      by_shape.push_back(&p);
  }
  if (by_shape.size() == 1) {
    m.peaks = by_shape.front();
    m.how = "by compute units and memory (the trace does not name a known device)";
  } else if (by_shape.size() > 1) {
    m.how = "ambiguous: ";
    for (size_t i = 0; i < by_shape.size(); ++i) {
      if (i) m.how += ", ";
      m.how += by_shape[i]->key;
    }
    m.how += " have its compute units and memory; name it with --device";
  }
  return m;
}

}  // namespace gpuscope::analysis
