// The device table's reader: the compiled-in table whole, and the errors of a damaged one.

#include "analysis/work/device_peaks.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpuscope::analysis {
namespace device_peaks_test {  // this file's helpers, apart in a unity build
namespace {

const std::string kHeader =
    "key\tname\tpatterns\tvendor\tarch\tcompute_units\tclock_mhz\tmemory_gb\thbm_tbps\t"
    "vector_fp32_tflops\tfp64\tfp32\ttf32\tbf16\tfp16\tfp8\tint8\tsource\n";
const std::string kRow =
    "X1\tMaker X1\tx1|x-one\tAMD\tgfx1\t100\t2000\t64\t3.5\t40.5\t1\t2\t3\t4\t5\t6\t7\tsheet\n";

TEST(DeviceTable, ReadsEveryColumnAndSkipsComments) {
  const std::string tsv = "# a comment\n\n" + kHeader + "# between\n" + kRow;
  auto t = ParseDeviceTable(tsv);  // the names are views of `tsv`
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 1u);
  const DevicePeaks& d = t->front();
  EXPECT_EQ(d.key, "X1");
  EXPECT_EQ(d.name, "Maker X1");
  EXPECT_EQ(d.patterns, "x1|x-one");
  EXPECT_EQ(d.vendor, model::Vendor::kAmd);
  EXPECT_EQ(d.arch, "gfx1");
  EXPECT_EQ(d.compute_units, 100);
  EXPECT_EQ(d.clock_mhz, 2000);
  EXPECT_EQ(d.memory_gb, 64);
  EXPECT_EQ(d.hbm_tbps, 3.5);
  EXPECT_EQ(d.vector_fp32_tflops, 40.5);
  double want = 1;
  for (Precision p : kPrecisions) EXPECT_EQ(d.Peak(p), want++) << PrecisionName(p);
  EXPECT_EQ(d.source, "sheet");
}

TEST(DeviceTable, NamesTheFirstLineThatDoesNotRead) {
  auto error = [](const std::string& tsv) {
    auto t = ParseDeviceTable(tsv);
    return t.ok() ? std::string("(read)") : t.status().message();
  };
  EXPECT_EQ(error(""), "no header");
  EXPECT_EQ(error(kRow), "line 1: not the expected header");
  std::string swapped = kHeader;
  swapped.replace(swapped.find("fp64\tfp32"), 9, "fp32\tfp64");
  EXPECT_EQ(error(swapped + kRow), "line 1: not the expected header");
  EXPECT_EQ(error(kHeader + "X1\tMaker X1\n"), "line 2: 2 fields, not 18");
  std::string bad_number = kRow;
  bad_number.replace(bad_number.find("3.5"), 3, "3,5");
  EXPECT_EQ(error(kHeader + bad_number), "line 2: a number or the vendor does not read");
  std::string bad_vendor = kRow;
  bad_vendor.replace(bad_vendor.find("AMD"), 3, "Acme");
  EXPECT_EQ(error("#\n" + kHeader + bad_vendor), "line 3: a number or the vendor does not read");
}

// The compiled-in table: every device once, each with its sheet, bandwidth and vector rate;
// one row checked figure by figure against its data sheet.
TEST(DeviceTable, TheCompiledInTable) {
  const auto& devices = KnownDevices();
  ASSERT_GE(devices.size(), 20u);
  std::set<std::string_view> keys;
  for (const DevicePeaks& d : devices) {
    EXPECT_TRUE(keys.insert(d.key).second) << d.key << " twice";
    EXPECT_NE(d.vendor, model::Vendor::kUnknown) << d.key;
    EXPECT_FALSE(d.source.empty()) << d.key;
    EXPECT_GT(d.hbm_tbps, 0) << d.key;
    EXPECT_GT(d.vector_fp32_tflops, 0) << d.key;
  }
  const DevicePeaks* mi300x = FindDevice("MI300X");
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(mi300x->compute_units, 304);
  EXPECT_EQ(mi300x->clock_mhz, 2100);
  EXPECT_EQ(mi300x->memory_gb, 192);
  EXPECT_EQ(mi300x->hbm_tbps, 5.3);
  EXPECT_EQ(mi300x->Peak(Precision::kFp64), 163.4);
  EXPECT_EQ(mi300x->Peak(Precision::kBf16), 1307.4);
  EXPECT_EQ(mi300x->Peak(Precision::kFp8), 2614.9);
}

}  // namespace
}  // namespace device_peaks_test
}  // namespace gpuscope::analysis
