#include "analysis/work/device_peaks.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

#include "base/enum_names.h"
#include "base/numbers.h"
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

}  // namespace

// (A gfx908 MI100 reports 9.0 too: its 120 CUs fit no gfx90a entry, so it is not an MI210.)
std::vector<const DevicePeaks*> ByArchitecture(const model::Device& d) {
  std::vector<const DevicePeaks*> out;
  const std::string arch = ArchitectureOf(d);
  if (arch.empty()) return out;
  const double gb = MemoryGb(d);
  for (const DevicePeaks& p : KnownDevices()) {
    if (p.arch == arch && (d.compute_units <= 0 || p.compute_units == d.compute_units) &&
        SameMemory(gb, p.memory_gb))
      out.push_back(&p);
  }
  return out;
}

namespace {

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

namespace internal {
extern const std::string_view kDeviceTableTsv;  // work/devices.tsv, compiled in
}  // namespace internal

namespace {

// devices.tsv's columns before the matrix peaks; one column per precision follows (named as
// PrecisionName, in kPrecisions' order), then the source.
constexpr std::string_view kLeadingColumns[] = {
    "key",           "name",      "patterns",  "vendor",   "arch",
    "compute_units", "clock_mhz", "memory_gb", "hbm_tbps", "vector_fp32_tflops"};
constexpr size_t kColumnCount = std::size(kLeadingColumns) + std::size(kPrecisionNames) + 1;

bool IsHeader(const std::vector<std::string_view>& f) {
  if (f.size() != kColumnCount || f.back() != "source") return false;
  return std::equal(std::begin(kLeadingColumns), std::end(kLeadingColumns), f.begin()) &&
         std::equal(std::begin(kPrecisionNames), std::end(kPrecisionNames),
                    f.begin() + std::size(kLeadingColumns));
}

// One row's fields into `d`, the names as views of the row; false when a number or the vendor
// does not read.
bool ReadRow(const std::vector<std::string_view>& f, DevicePeaks* d) {
  d->key = f[0], d->name = f[1], d->patterns = f[2], d->source = f.back();
  d->arch = f[4] == "-" ? std::string_view() : f[4];
  auto cus = base::ParseInt64(f[5]), mhz = base::ParseInt64(f[6]);
  if (!model::ParseVendor(f[3], &d->vendor) || !cus || !mhz) return false;
  d->compute_units = static_cast<int>(*cus), d->clock_mhz = static_cast<int>(*mhz);
  // The reals from memory_gb on: three of the device, then a peak per precision.
  size_t col = 7;
  auto real = [&](double* out) {
    auto v = base::ParseDouble(f[col++]);
    if (v) *out = *v;
    return v.has_value();
  };
  for (double* r : {&d->memory_gb, &d->hbm_tbps, &d->vector_fp32_tflops}) {
    if (!real(r)) return false;
  }
  for (auto peak : kPeakOf) {
    if (!real(&(d->*peak))) return false;
  }
  return true;
}

}  // namespace

base::StatusOr<std::vector<DevicePeaks>> ParseDeviceTable(std::string_view tsv) {
  std::vector<DevicePeaks> out;
  bool header = false;
  for (size_t line_no = 1; !tsv.empty(); ++line_no) {
    std::string_view line = tsv.substr(0, tsv.find('\n'));
    tsv.remove_prefix(std::min(tsv.size(), line.size() + 1));
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields = base::SplitTabs(line);
    auto where = "line " + std::to_string(line_no) + ": ";
    if (!header) {
      if (!IsHeader(fields)) return base::Status::Error(where + "not the expected header");
      header = true;
      continue;
    }
    if (fields.size() != kColumnCount)
      return base::Status::Error(where + std::to_string(fields.size()) + " fields, not " +
                                 std::to_string(kColumnCount));
    if (!ReadRow(fields, &out.emplace_back()))
      return base::Status::Error(where + "a number or the vendor does not read");
  }
  if (!header) return base::Status::Error("no header");
  return out;
}

const std::vector<DevicePeaks>& KnownDevices() {
  static const std::vector<DevicePeaks> devices = [] {
    auto parsed = ParseDeviceTable(internal::kDeviceTableTsv);
    // The table is compiled in and read by the tests: a failure here is a broken build.
    if (!parsed.ok()) {
      std::fprintf(stderr, "gpuscope: internal error: devices.tsv: %s\n",
                   parsed.status().message().c_str());
      std::abort();
    }
    return std::move(*parsed);
  }();
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

std::string ArchitectureOf(const model::Device& d) {
  std::string lower = base::AsciiLower(d.name);
  if (size_t g = lower.find("gfx"); g != std::string::npos) {
    size_t e = g + 3;
    while (e < lower.size() && std::isalnum(static_cast<unsigned char>(lower[e]))) ++e;
    if (e > g + 3) return lower.substr(g, e - g);
  }
  if (d.vendor != model::Vendor::kAmd || d.compute_major != 9) return {};
  switch (d.compute_minor) {
    case 0:
      return "gfx90a";  // (gfx908, MI100, also says 9.0: its 120 CUs match no gfx90a entry)
    case 4:
      return "gfx942";
    case 5:
      return "gfx950";
    default:
      return {};
  }
}

std::string NameFromArchitecture(const model::Device& d) {
  std::vector<const DevicePeaks*> fits = ByArchitecture(d);
  if (fits.empty()) return {};
  std::string name(fits.front()->name);
  const std::string_view family = "AMD Instinct ";
  for (size_t i = 1; i < fits.size(); ++i) {
    std::string_view other = fits[i]->name;
    if (other.starts_with(family)) other.remove_prefix(family.size());
    name.append(" or ").append(other);
  }
  name += " (" + ArchitectureOf(d);
  if (d.compute_units > 0) name += ", " + std::to_string(d.compute_units) + " CUs";
  return name + ")";
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
  // By architecture, compute units and memory.
  if (std::vector<const DevicePeaks*> by_arch = ByArchitecture(d); !by_arch.empty()) {
    m.peaks = by_arch.front();
    m.how = "by its architecture (" + ArchitectureOf(d) + "), compute units and memory";
    if (by_arch.size() > 1) m.how += " (ambiguous; took the first match)";
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
