#include "model/validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gpuscope::model {
namespace validate_test {  // this file's helpers, apart in a unity build
namespace {

constexpr int64_t kEpoch = 1'700'000'000'000'000'000;  // an epoch-ns clock, as Kineto/rpd write
constexpr int64_t kSecond = 1'000'000'000;

void AddKernel(Trace& t, int64_t start, int64_t dur, const char* name = "k") {
  KernelRow r;
  r.start_ns = start;
  r.dur_ns = dur;
  r.name = t.strings.Intern(name);
  r.track = t.InternTrack(TrackKind::kGpuStream, "0", "7");
  r.device = 0;
  t.kernels.Append(r);
}

// A healthy GPU-bound run: `n` kernels of 10 us every 20 us from kEpoch.
void AddRun(Trace& t, int n) {
  for (int i = 0; i < n; ++i) AddKernel(t, kEpoch + i * 20'000, 10'000);
}

uint64_t Count(const Trace& t, const char* kind) {
  auto it = t.problems.entries().find(kind);
  return it == t.problems.entries().end() ? 0 : it->second.count;
}

TEST(Validate, HealthyTraceIsUntouched) {
  Trace t;
  AddRun(t, 1000);
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.checked, 1000u);
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(t.kernels.size(), 1000u);
  EXPECT_TRUE(t.problems.empty());
}

TEST(Validate, MissingAndInvertedTimesAreDroppedAndCounted) {
  Trace t;
  AddRun(t, 500);
  AddKernel(t, kUnknownTime, 100, "no_start");
  AddKernel(t, kEpoch, DurationBetween(kEpoch, kUnknownTime), "no_end");
  AddKernel(t, kEpoch + 5000, DurationBetween(kEpoch + 5000, kEpoch + 1000), "inverted");
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(t.kernels.size(), 500u);
  EXPECT_EQ(Count(t, "invalid.missing_time"), 2u);
  EXPECT_EQ(Count(t, "invalid.end_before_start"), 1u);
  // Every column stays aligned after the compaction.
  EXPECT_EQ(t.kernels.name.size(), 500u);
  EXPECT_EQ(t.kernels.device.size(), 500u);
  for (size_t i = 0; i < t.kernels.size(); ++i) EXPECT_EQ(t.str(t.kernels.name[i]), "k");
}

TEST(Validate, OneWildValueCannotStretchTheClock) {
  Trace t;
  AddRun(t, 500);
  AddKernel(t, 0, 10'000, "zero_start");  // a cell read as 0
  AddKernel(t, kEpoch + 1000, std::numeric_limits<int64_t>::max() - kEpoch - 1000, "end_int64_max");
  AddKernel(t, -5, 10, "negative");
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(Count(t, "invalid.time_out_of_range"), 3u);
  auto [lo, hi] = t.TimeSpan();
  EXPECT_EQ(lo, kEpoch);
  EXPECT_EQ(hi, kEpoch + 499 * 20'000 + 10'000);
  EXPECT_FALSE(r.mostly_invalid);
}

TEST(Validate, ADeviceOnlyDroppedEventsNamedIsRemoved) {
  Trace t;
  t.devices.push_back(Device{.id = 0, .name = "gpu0"});
  t.devices.push_back(Device{.id = 3, .name = "phantom"});
  AddRun(t, 100);
  KernelRow zeros;  // a row of zeros on device 3
  zeros.device = 3;
  zeros.track = t.InternTrack(TrackKind::kGpuStream, "3", "0");
  t.kernels.Append(zeros);
  ValidateEvents(t);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "gpu0");
}

TEST(Validate, LongIdleStretchesOfARealRunAreKept) {
  // Start-up work 40 minutes before a 10 s burst of most of the events: a server waiting for
  // requests. Inside the widened range (at least an hour on each side), so nothing is lost.
  Trace t;
  for (int i = 0; i < 20; ++i) AddKernel(t, kEpoch + i * 1000, 500, "init");
  int64_t burst = kEpoch + 40 * 60 * kSecond;
  for (int64_t i = 0; i < 5000; ++i) AddKernel(t, burst + i * 2'000'000, 1000);
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(t.kernels.size(), 5020u);
}

TEST(Validate, NegativeSizesBecomeUnknown) {
  Trace t;
  AddRun(t, 10);
  MemopRow m;
  m.start_ns = kEpoch + 100;
  m.dur_ns = 50;
  m.bytes = -4096;
  m.name = t.strings.Intern("Memcpy HtoD");
  t.memops.Append(m);
  m.bytes = -1;  // "not recorded": left alone
  t.memops.Append(m);
  ValidateEvents(t);
  ASSERT_EQ(t.memops.size(), 2u);
  EXPECT_EQ(t.memops.bytes[0], -1);
  EXPECT_EQ(Count(t, "invalid.negative_size"), 1u);
}

TEST(Validate, MostlyInvalidTraceIsFlagged) {
  Trace t;
  AddRun(t, 10);
  for (int i = 0; i < 30; ++i) AddKernel(t, kUnknownTime, 5, "bad");
  ValidationResult r = ValidateEvents(t);
  EXPECT_TRUE(r.mostly_invalid);
  EXPECT_EQ(r.dropped, 30u);
  EXPECT_NE(r.first_problem.find("kernel 'bad'"), std::string::npos) << r.first_problem;
}

TEST(Validate, KinetoClampedEventsAreNotWildValues) {
  Trace t;
  AddRun(t, 100);
  AddKernel(t, 0, 0, "clamped");
  t.meta.clamped_zero_events = 1;
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(t.kernels.size(), 101u);
}

TEST(Validate, CountersAndInstantsAreChecked) {
  Trace t;
  AddRun(t, 100);
  TrackId track = t.InternTrack(TrackKind::kOther, "1", "1");
  t.counters.Append(kEpoch + 10, 1.5, t.strings.Intern("mem"), track);
  t.counters.Append(kEpoch + 20, std::nan(""), t.strings.Intern("mem"), track);
  t.counters.Append(kUnknownTime, 2.0, t.strings.Intern("mem"), track);
  t.instants.Append(std::numeric_limits<int64_t>::max(), t.strings.Intern("mark"), track);
  t.instants.Append(kEpoch + 30, t.strings.Intern("mark"), track);
  ValidationResult r = ValidateEvents(t);
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(Count(t, "invalid.counter_value"), 1u);
}

TEST(Validate, NoTimeBeyondTwoToTheSixtyTwo) {
  // Times spread over most of int64: the widened range saturates, and the absolute bound keeps
  // every difference of two times representable.
  Trace t;
  for (int64_t i = -500; i < 500; ++i) AddKernel(t, i * 12'000'000'000'000'000, 10);
  ValidateEvents(t);
  auto [lo, hi] = t.TimeSpan();
  EXPECT_GE(lo, -(int64_t{1} << 62));
  EXPECT_LE(hi, int64_t{1} << 62);
  EXPECT_LT(t.kernels.size(), 1000u);
}

TEST(Validate, DurationBetweenNeverOverflows) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(DurationBetween(-kMax, kMax), kUnknownTime);
  EXPECT_EQ(DurationBetween(10, 4), -6);
  EXPECT_EQ(DurationBetween(kUnknownTime, 4), kUnknownTime);
}

}  // namespace
}  // namespace validate_test
}  // namespace gpuscope::model
