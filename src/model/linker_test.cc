#include "model/linker.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <utility>

#include "model/plausibility.h"

namespace gpuscope::model {
namespace linker_test {  // this file's helpers, apart in a unity build
namespace {

// Builds traces by hand: the linker must not depend on any importer.
class LinkerTest : public ::testing::Test {
 protected:
  TrackId thread_ = 0, stream_ = 0;
  Trace t_;
  void SetUp() override {
    thread_ = t_.InternTrack(TrackKind::kCpuThread, "100", "100");
    stream_ = t_.InternTrack(TrackKind::kGpuStream, "0", "7");
  }
  RowId Op(const char* name, int64_t start, int64_t dur, CpuRangeKind kind = CpuRangeKind::kOp) {
    CpuRangeRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = thread_,
    r.kind = kind;
    t_.cpu.Append(r);
    return static_cast<RowId>(t_.cpu.size() - 1);
  }
  void Api(const char* name, int64_t start, int64_t dur, uint64_t corr) {
    ApiRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = thread_,
    r.correlation = corr;
    t_.api.Append(r);
  }
  void Kernel(int64_t start, int64_t dur, uint64_t corr, TrackId stream = UINT32_MAX,
              int16_t device = 0) {
    KernelRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern("k"),
    r.track = stream == UINT32_MAX ? stream_ : stream, r.correlation = corr, r.device = device;
    t_.kernels.Append(r);
  }
  RowId RowNamed(const char* name) {
    for (size_t i = 0; i < t_.cpu.size(); ++i) {
      if (t_.str(t_.cpu.name[i]) == name) return static_cast<RowId>(i);
    }
    return kNoRow;
  }
};

TEST_F(LinkerTest, CorrelationFanOutFromOneGraphLaunch) {
  Api("cudaGraphLaunch", 100, 10, 42);
  Api("cudaLaunchKernel", 200, 10, 43);
  Kernel(300, 5, 42);
  Kernel(310, 5, 42);
  Kernel(320, 5, 42);
  Kernel(400, 5, 43);
  Kernel(500, 5, 77);  // launched by a call the trace did not record
  LinkTrace(t_);
  ASSERT_EQ(t_.kernels.size(), 5u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(t_.str(t_.api.name[t_.kernels.launch[i]]), "cudaGraphLaunch");
  EXPECT_EQ(t_.str(t_.api.name[t_.kernels.launch[3]]), "cudaLaunchKernel");
  EXPECT_EQ(t_.kernels.launch[4], kNoRow);
}

// --align-clocks: device 1's clock runs 1 ms behind the host's; device 0's is right. Device 1
// is shifted by its largest lead before anything else is linked, and the kernel table is in time
// order again (its rows move past device 0's).
TEST_F(LinkerTest, AlignClocksShiftsTheDeviceBehindAndSortsItsRowsAgain) {
  const TrackId other = t_.InternTrack(TrackKind::kGpuStream, "1", "7");
  Api("cudaLaunchKernel", 1'000, 10, 1);
  Api("cudaLaunchKernel", 2'000, 10, 2);
  Api("cudaLaunchKernel", 3'000, 10, 3);
  Kernel(1'020, 5, 1);                         // device 0: 20 ns after its launch
  Kernel(2'000 + 30 - 1'000, 5, 2, other, 1);  // device 1: 970 ns before its launch
  Kernel(3'000 + 50 - 1'000, 5, 3, other, 1);  // and 950 ns before
  LinkTrace(t_, {.align_clocks = true});
  ASSERT_EQ(t_.meta.clock_shifts.size(), 1u);
  EXPECT_EQ(t_.meta.clock_shifts[0].device, 1);
  EXPECT_EQ(t_.meta.clock_shifts[0].shift_ns, 970);
  ASSERT_EQ(t_.kernels.size(), 3u);
  EXPECT_EQ(t_.kernels.start_ns[0], 1'020);  // device 0 untouched, first in time now
  EXPECT_EQ(t_.kernels.start_ns[1], 2'000);  // exactly at its launch: the worst lead
  EXPECT_EQ(t_.kernels.start_ns[2], 3'020);
  for (size_t i = 0; i < 3; ++i)  // links moved with their rows
    EXPECT_EQ(t_.api.correlation[t_.kernels.launch[i]], t_.kernels.correlation[i]);
}

// Kernels that run against their launch order are linked wrong or timed by a clock that jumped:
// no shift repairs that, so none is made.
TEST_F(LinkerTest, AlignClocksLeavesATraceWhoseKernelsRunAgainstLaunchOrder) {
  Api("cudaLaunchKernel", 10'000, 10, 1);
  Api("cudaLaunchKernel", 20'000, 10, 2);
  Kernel(15'000, 5, 2);  // the later launch's kernel runs first, and before its launch
  Kernel(18'000, 5, 1);
  LinkTrace(t_, {.align_clocks = true});
  EXPECT_GT(t_.problems.Count(kLaunchOrder), 0u);
  EXPECT_TRUE(t_.meta.clock_shifts.empty());
  EXPECT_EQ(t_.kernels.start_ns[0], 15'000);
}

// A shift that would carry a GPU event past the clock's range is not made (hostile times).
TEST_F(LinkerTest, AlignClocksNeverShiftsAnEventPastTheClocksRange) {
  Api("cudaLaunchKernel", INT64_MAX - 10, 5, 1);
  Kernel(INT64_MAX - 100, 50, 1);  // 90 ns before its launch; shifted, it would end past the max
  LinkTrace(t_, {.align_clocks = true});
  EXPECT_TRUE(t_.meta.clock_shifts.empty());
  EXPECT_EQ(t_.kernels.start_ns[0], INT64_MAX - 100);
}

TEST_F(LinkerTest, ApiCallGoesToTheDeepestEnclosingOp) {
  // Inserted out of order on purpose: the linker sorts first.
  Op("aten::addmm", 20, 50);
  Op("aten::linear", 10, 100);
  Op("aten::relu", 200, 10);
  Api("cudaLaunchKernel", 30, 5, 1);    // inside addmm inside linear
  Api("cudaLaunchKernel", 80, 5, 2);    // inside linear only
  Api("cudaMemcpyAsync", 150, 5, 3);    // inside nothing
  Api("cudaLaunchKernel", 205, 10, 4);  // starts in relu but ends after it: not contained
  LinkTrace(t_);
  auto enclosing = [&](uint64_t corr) -> std::string {
    for (size_t i = 0; i < t_.api.size(); ++i) {
      if (t_.api.correlation[i] == corr) {
        RowId op = t_.api.enclosing_op[i];
        return op == kNoRow ? "-" : std::string(t_.str(t_.cpu.name[op]));
      }
    }
    return "?";
  };
  EXPECT_EQ(enclosing(1), "aten::addmm");
  EXPECT_EQ(enclosing(2), "aten::linear");
  EXPECT_EQ(enclosing(3), "-");
  EXPECT_EQ(enclosing(4), "-");
}

TEST_F(LinkerTest, NestingParentsAndDepths) {
  Op("ProfilerStep#7", 0, 1000, CpuRangeKind::kAnnotation);
  Op("aten::linear", 10, 100);
  Op("aten::addmm", 20, 50);
  Op("aten::empty", 20, 0);  // zero-length at the same start: a child of addmm
  Op("aten::relu", 200, 10);
  LinkTrace(t_);
  RowId step = RowNamed("ProfilerStep#7"), linear = RowNamed("aten::linear"),
        addmm = RowNamed("aten::addmm");
  EXPECT_EQ(t_.cpu.parent[step], kNoRow);
  EXPECT_EQ(t_.cpu.parent[linear], step);
  EXPECT_EQ(t_.cpu.parent[addmm], linear);
  EXPECT_EQ(t_.cpu.parent[RowNamed("aten::empty")], addmm);
  EXPECT_EQ(t_.cpu.parent[RowNamed("aten::relu")], step);
  EXPECT_EQ(t_.cpu.depth[addmm], 2);
  ASSERT_EQ(t_.iterations.size(), 1u);
  EXPECT_EQ(t_.iterations[0].number, 7);
  EXPECT_EQ(t_.iterations[0].dur_ns, 1000);
}

TEST_F(LinkerTest, OverlapWithoutNestingIsCountedAndTreatedAsSibling) {
  Op("a", 0, 100);
  Op("b", 50, 100);  // starts inside a, ends after it
  LinkTrace(t_);
  EXPECT_EQ(t_.cpu.parent[RowNamed("b")], kNoRow);
  ASSERT_EQ(t_.problems.entries().count("link.cpu_ranges_overlap"), 1u);
  EXPECT_EQ(t_.problems.entries().at("link.cpu_ranges_overlap").count, 1u);
}

TEST_F(LinkerTest, PythonFramesEncloseOpsAndChainToParents) {
  PythonFrameRow outer;
  outer.start_ns = 0, outer.dur_ns = 1000,
  outer.name = t_.strings.Intern("inference.py(12): forward");
  outer.track = thread_, outer.python_id = 1;
  PythonFrameRow inner = outer;
  inner.start_ns = 5, inner.dur_ns = 200,
  inner.name = t_.strings.Intern("torch/nn/modules/linear.py(125): forward");
  inner.python_id = 2, inner.python_parent_id = 1;
  t_.python.Append(inner);
  t_.python.Append(outer);
  Op("aten::linear", 10, 100);
  Op("aten::relu", 300, 10);
  LinkTrace(t_);
  auto frame = [&](const char* op) {
    return std::string(t_.str(t_.python.name[t_.cpu.python_frame[RowNamed(op)]]));
  };
  EXPECT_EQ(frame("aten::linear"), "torch/nn/modules/linear.py(125): forward");
  EXPECT_EQ(frame("aten::relu"), "inference.py(12): forward");
  // Sorted: outer first.
  EXPECT_EQ(t_.python.parent[1], 0u);
  EXPECT_EQ(t_.python.parent[0], kNoRow);
}

// A frame's recorded parent id wins over containment (here the frame between them); an id not
// in the trace falls back to containment. Ids in a range (a table by id less the least, from 0
// or from where the profiler's counter stood) or spread wide (sorted pairs): the same links.
TEST_F(LinkerTest, PythonParentsByIdDenseOrSparse) {
  for (auto [scale, base] : {std::pair<int64_t, int64_t>{1, 0},
                             {1, 29937668},
                             {1000000000000, 0},
                             {1000000000000, 29937668}}) {
    Trace t;
    TrackId thread = t.InternTrack(TrackKind::kCpuThread, "100", "100");
    auto frame = [&](const char* name, int64_t start, int64_t dur, int64_t id, int64_t parent) {
      PythonFrameRow r;
      r.start_ns = start, r.dur_ns = dur, r.name = t.strings.Intern(name), r.track = thread;
      r.python_id = id, r.python_parent_id = parent;
      t.python.Append(r);
    };
    frame("a", 0, 1000, base + 1 * scale, -1);
    frame("c", 50, 500, base + 2 * scale, base + 1 * scale);
    frame("b", 100, 100, base + 3 * scale, base + 1 * scale);  // inside c, but its parent is a
    frame("d", 300, 10, base + 4 * scale, base + 99 * scale);  // a parent the trace lacks
    frame("e", 320, 10, base + 5 * scale, base > 0 ? base - 1 : 0);  // one below the least id
    LinkTrace(t);
    auto parent_of = [&](const char* name) {
      for (size_t i = 0; i < t.python.size(); ++i)
        if (t.str(t.python.name[i]) == name && t.python.parent[i] != kNoRow)
          return std::string(t.str(t.python.name[t.python.parent[i]]));
      return std::string("none");
    };
    EXPECT_EQ(parent_of("a"), "none") << scale;
    EXPECT_EQ(parent_of("c"), "a") << scale;
    EXPECT_EQ(parent_of("b"), "a") << scale;
    EXPECT_EQ(parent_of("d"), "c") << scale;
    EXPECT_EQ(parent_of("e"), "c") << scale << " " << base;
  }
}

// On a large trace the CPU ranges' nesting and enclosures run while the Python frames' parents
// are linked: the same links as on one thread (thresholds lowered so that a small trace takes
// both paths), and `threads = 1` keeps it to one.
TEST(LinkerThreads, BothJobsAtOnceLinkAsOneThreadDoes) {
  auto build = [] {
    Trace t;
    TrackId thread = t.InternTrack(TrackKind::kCpuThread, "100", "100");
    for (int64_t i = 0; i < 300; ++i) {
      PythonFrameRow f;
      f.start_ns = i * 100, f.dur_ns = i % 3 == 0 ? 250 : 40, f.track = thread;
      f.name = t.strings.Intern("frame" + std::to_string(i % 7));
      f.python_id = i + 1, f.python_parent_id = i % 3 == 0 ? -1 : i - i % 3 + 1;
      t.python.Append(f);
      CpuRangeRow op;
      op.start_ns = i * 100 + 5, op.dur_ns = i % 2 == 0 ? 60 : 10, op.track = thread;
      op.name = t.strings.Intern("aten::op"), op.kind = CpuRangeKind::kOp;
      t.cpu.Append(op);
      ApiRow call;
      call.start_ns = i * 100 + 7, call.dur_ns = 2, call.track = thread;
      call.name = t.strings.Intern("cudaLaunchKernel"), call.correlation = static_cast<uint64_t>(i);
      t.api.Append(call);
    }
    return t;
  };
  Trace one = build(), two = build();
  LinkTrace(one, {.threads = 1, .parallel_min_rows = 0});
  LinkTrace(two, {.threads = 2, .parallel_min_rows = 0});
  EXPECT_EQ(two.python.parent, one.python.parent);
  EXPECT_EQ(two.cpu.parent, one.cpu.parent);
  EXPECT_EQ(two.cpu.depth, one.cpu.depth);
  EXPECT_EQ(two.cpu.python_frame, one.cpu.python_frame);
  EXPECT_EQ(two.api.enclosing_op, one.api.enclosing_op);
  size_t linked = 0;
  for (RowId p : one.python.parent) linked += p != kNoRow;
  EXPECT_EQ(linked, 200u);  // every frame whose parent id is in the trace
}

TEST_F(LinkerTest, DuplicateCorrelationIsCounted) {
  Api("a", 0, 1, 5);
  Api("b", 10, 1, 5);
  Kernel(20, 1, 5);
  LinkTrace(t_);
  EXPECT_EQ(t_.problems.entries().at("link.duplicate_correlation").count, 1u);
  EXPECT_EQ(t_.str(t_.api.name[t_.kernels.launch[0]]), "a");
}

}  // namespace
}  // namespace linker_test
}  // namespace gpuscope::model
