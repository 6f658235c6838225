#include "model/merge.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace gpuscope::model {
namespace merge_test {  // this file's helpers, apart in a unity build
namespace {

// A trace of `n` kernels named `prefix<i % 3>` on stream "0/7" and one CPU op, as a parallel
// segment of a file would hold them (its own names and tracks).
Trace Segment(const std::string& prefix, int n, int64_t t0, const std::string& process) {
  Trace t;
  TrackId stream = t.InternTrack(TrackKind::kGpuStream, "0", "7");
  TrackId thread = t.InternTrack(TrackKind::kCpuThread, "100", "100");
  for (int i = 0; i < n; ++i) {
    KernelRow k;
    k.start_ns = t0 + i, k.dur_ns = 1, k.correlation = static_cast<uint64_t>(t0 + i);
    std::string name = prefix;
    name += std::to_string(i % 3);
    k.name = t.strings.Intern(name), k.track = stream;
    t.kernels.Append(k);
  }
  CpuRangeRow op;
  op.start_ns = t0, op.dur_ns = 5, op.name = t.strings.Intern("aten::mm"), op.track = thread;
  t.cpu.Append(op);
  t.process_names.emplace(100, t.strings.Intern(process));
  return t;
}

TEST(AppendTraces, SourcesAppendInOrderWithTheirNamesAndTracks) {
  Trace dst = Segment("k", 4, 0, "first");
  Trace a = Segment("k", 5, 100, "second");  // shares names with dst
  Trace b = Segment("q", 6, 200, "third");   // names of its own
  dst.meta.AddOverhead(10), a.meta.AddOverhead(20), b.meta.AddOverhead(30);
  a.meta.clamped_zero_events = 2;
  AppendTraces(dst, {&a, &b});
  // What a segment's metadata counted adds up (the profiler's overhead was lost before: a
  // 200 MB trace said 59 ms read in one segment and 12 ms in five).
  EXPECT_EQ(dst.meta.profiler_overhead_ns, 60);
  EXPECT_EQ(dst.meta.clamped_zero_events, 2u);
  ASSERT_EQ(dst.kernels.size(), 15u);
  ASSERT_EQ(dst.cpu.size(), 3u);
  EXPECT_EQ(dst.tracks.size(), 2u);  // the same stream and thread in every source
  for (size_t i = 0; i < dst.kernels.size(); ++i) {
    int64_t local = i < 4 ? static_cast<int64_t>(i) : i < 9 ? i - 4 : i - 9;
    int64_t t0 = i < 4 ? 0 : i < 9 ? 100 : 200;
    EXPECT_EQ(dst.kernels.start_ns[i], t0 + local) << i;
    std::string name = i < 9 ? "k" : "q";
    name += std::to_string(local % 3);
    EXPECT_EQ(dst.str(dst.kernels.name[i]), name) << i;
    EXPECT_EQ(dst.kernels.track[i], dst.kernels.track[0]) << i;
    // Each column grew once, to its size.
    EXPECT_EQ(dst.kernels.correlation.capacity(), dst.kernels.size());
  }
  EXPECT_EQ(dst.str(dst.cpu.name[2]), "aten::mm");
  EXPECT_EQ(dst.str(dst.process_names.at(100)), "first");  // the first source's name stays
  EXPECT_EQ(a.kernels.size(), 0u);                         // the sources are left empty
  EXPECT_EQ(b.strings.size(), Trace().strings.size());
}

TEST(ReserveScaled, EveryColumnGetsRoomForItsRowsTimesTheFactor) {
  Trace t = Segment("k", 1000, 0, "p");
  ReserveScaled(t, 3.5);
  t.kernels.ForEachColumn([](auto& col) { EXPECT_GE(col.capacity(), 3500u); });
  t.cpu.ForEachColumn([](auto& col) { EXPECT_GE(col.capacity(), 3u); });
  EXPECT_EQ(t.kernels.size(), 1000u);
  EXPECT_EQ(t.str(t.kernels.name[999]), "k0");
  const size_t room = t.kernels.start_ns.capacity();
  ReserveScaled(t, 0.5);  // never shrinks
  ReserveScaled(t, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(t.kernels.start_ns.capacity(), room);
  // More room than a vector holds, or than any machine lends: none taken, no throw.
  ReserveScaled(t, 1e30);
  ReserveScaled(t, std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.kernels.start_ns.capacity(), room);
  EXPECT_EQ(t.kernels.size(), 1000u);
}

// Every column's append is a job; on a large merge they run on several threads (the threshold
// lowered here so that a small one does): the result is the one thread's, column by column.
TEST(AppendTraces, ColumnsAppendedOnSeveralThreadsAsOnOne) {
  auto merged = [](int threads) {
    Trace dst = Segment("k", 40, 0, "first");
    Trace a = Segment("k", 50, 1000, "second");
    Trace b = Segment("q", 60, 2000, "third");
    AppendTraces(dst, {&a, &b}, {.threads = threads, .parallel_min_bytes = 0});
    return dst;
  };
  Trace one = merged(1), four = merged(4);
  ASSERT_EQ(four.kernels.size(), 150u);
  EXPECT_EQ(four.kernels.start_ns, one.kernels.start_ns);
  EXPECT_EQ(four.kernels.dur_ns, one.kernels.dur_ns);
  EXPECT_EQ(four.kernels.correlation, one.kernels.correlation);
  EXPECT_EQ(four.kernels.name, one.kernels.name);
  EXPECT_EQ(four.kernels.track, one.kernels.track);
  EXPECT_EQ(four.cpu.start_ns, one.cpu.start_ns);
  EXPECT_EQ(four.cpu.name, one.cpu.name);
  for (size_t i = 0; i < four.kernels.size(); ++i)
    EXPECT_EQ(four.str(four.kernels.name[i]), one.str(one.kernels.name[i])) << i;
  EXPECT_EQ(four.kernels.correlation.capacity(), four.kernels.size());  // grown once
}

}  // namespace
}  // namespace merge_test
}  // namespace gpuscope::model
