// rocprofv3 rocpd importer tests on tests/data/rocpd_small.sql (and its second-process twin):
// UUID-suffixed tables read through views, stack_id links, markers, and a directory of
// per-process databases merged into one trace.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/formats.h"
#include "import/registry.h"
#include "model/op_args.h"

namespace gpuscope::import::rocm {
namespace rocpd_importer_test {  // this file's helpers, apart in a unity build
namespace {

using testing::Find;
using testing::Load;
using testing::MakeDb;

const std::string kData = GPUSCOPE_TEST_DATA_DIR;

// torch.autograd.profiler.emit_nvtx on ROCm: roctx ranges whose text names an op (and its
// inputs' sizes) are ops; any other text stays an annotation.
TEST(RocpdImporter, EmitNvtxRangesAreOps) {
  model::Trace t =
      Load(MakeDb(kData + "/rocpd_small.sql",
                  "UPDATE rocpd_event_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001 SET extdata "
                  "= '{\"message\":\"aten::mm, op_id = 7, sizes = [[2, 3], [3, "
                  "4]]\"}' WHERE id = 7;",
                  "4000_results.db"));
  size_t mm = Find(t, t.cpu, "aten::mm");
  ASSERT_NE(mm, SIZE_MAX);
  EXPECT_EQ(t.cpu.kind[mm], model::CpuRangeKind::kOp);
  model::OpArgs args;
  ASSERT_TRUE(model::DecodeOpArgs(t.str(t.cpu.args[mm]), &args));
  ASSERT_EQ(args.shapes.size(), 2u);
  EXPECT_EQ(args.shapes[1].dims, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Find(t, t.cpu, "forward"), SIZE_MAX);
}

TEST(RocpdImporter, ReadsDispatchesCopiesRegionsAndMarkers) {
  model::Trace t = Load(MakeDb(kData + "/rocpd_small.sql", "", "4000_results.db"));
  EXPECT_EQ(t.meta.format, "rocpd");
  EXPECT_EQ(t.meta.format_version, "rocpd schema 3");
  EXPECT_EQ(t.meta.clock, "CLOCK_BOOTTIME (ns)");
  ASSERT_EQ(t.devices.size(), 1u);  // CPU agents are not devices
  EXPECT_EQ(t.devices[0].name, "AMD Instinct MI300X (gfx942)");
  EXPECT_EQ(t.devices[0].compute_units, 304);
  EXPECT_EQ(t.devices[0].warp_size, 64);

  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.str(t.kernels.name[0]), "gemm(float*, float*)");
  EXPECT_EQ(t.kernels.registers[0], 64u);
  EXPECT_EQ(t.kernels.shared_mem[0], 8192u);
  EXPECT_EQ(t.kernels.grid[0][0], 65536u);
  EXPECT_EQ(t.kernels.flags[2], model::kKernelIsCopy);
  // Kernel -> launching call through the event's stack_id (= the region's id).
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_NE(t.kernels.launch[i], model::kNoRow);
    EXPECT_EQ(t.str(t.api.name[t.kernels.launch[i]]), "hipLaunchKernel");
  }
  EXPECT_EQ(t.api.start_ns[t.kernels.launch[2]], 111'000);

  ASSERT_EQ(t.memops.size(), 2u);
  EXPECT_EQ(t.memops.kind[0], model::MemopKind::kHtoD);
  EXPECT_EQ(t.memops.bytes[0], 4 << 20);
  EXPECT_EQ(t.memops.src[0], model::MemoryKind::kHost);
  EXPECT_EQ(t.memops.kind[1], model::MemopKind::kDtoH);
  EXPECT_EQ(t.memops.bytes[1], 64);
  EXPECT_EQ(t.str(t.api.name[t.memops.launch[1]]), "hipMemcpyAsync");

  size_t hsa = Find(t, t.api, "hsa_queue_create");
  ASSERT_NE(hsa, SIZE_MAX);
  EXPECT_EQ(t.api.domain[hsa], model::ApiDomain::kHsa);
  size_t fwd = Find(t, t.cpu, "forward");  // roctx text from the event's extdata message
  ASSERT_NE(fwd, SIZE_MAX);
  EXPECT_EQ(t.cpu.kind[fwd], model::CpuRangeKind::kAnnotation);
  ASSERT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.str(t.instants.name[0]), "step 1");
  EXPECT_EQ(t.str(t.process_names.at(4000)), "python infer.py");
  EXPECT_TRUE(t.meta.not_collected.empty());
  EXPECT_TRUE(t.problems.empty());
}

TEST(RocpdImporter, NoCopiesMeansNotCollected) {
  model::Trace t = Load(MakeDb(
      kData + "/rocpd_small.sql",
      "DELETE FROM rocpd_memory_copy_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001;", "x_results.db"));
  EXPECT_EQ(t.memops.size(), 0u);
  ASSERT_EQ(t.meta.not_collected.size(), 1u);
  EXPECT_NE(t.meta.not_collected[0].find("--memory-copy-trace"), std::string::npos);
}

// rocpd_memory_allocate (as rocprofv3 --memory-allocation-trace writes it): real allocations on
// a GPU agent become device memory events, a free takes the size of the block at its address;
// host, virtual and unmatched records are counted.
TEST(RocpdImporter, AllocationsOnTheGpuAreMemoryEvents) {
  model::Trace t = Load(MakeDb(
      kData + "/rocpd_small.sql",
      "CREATE TABLE rocpd_memory_allocate (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid "
      "INTEGER, tid INTEGER, agent_id INTEGER, type TEXT, level TEXT, start INTEGER, end INTEGER, "
      "address INTEGER, size INTEGER, queue_id INTEGER, stream_id INTEGER, event_id INTEGER, "
      "extdata JSONB);"
      "INSERT INTO rocpd_memory_allocate VALUES (1, 'g', 1, 4000, 4000, 2, 'ALLOC', 'REAL', "
      "105000, 105500, 4096, 1048576, 0, 0, NULL, '{}');"
      "INSERT INTO rocpd_memory_allocate VALUES (2, 'g', 1, 4000, 4000, 0, 'ALLOC', 'REAL', "
      "106000, 106500, 8192, 64, 0, 0, NULL, '{}');"
      "INSERT INTO rocpd_memory_allocate VALUES (3, 'g', 1, 4000, 4000, 2, 'ALLOC', 'VIRTUAL', "
      "107000, 107500, 1048576, 4096, 0, 0, NULL, '{}');"
      "INSERT INTO rocpd_memory_allocate VALUES (5, 'g', 1, 4000, 4000, NULL, 'FREE', 'REAL', "
      "109000, 109500, 12345, 0, 0, 0, NULL, '{}');"
      "INSERT INTO rocpd_memory_allocate VALUES (4, 'g', 1, 4000, 4000, NULL, 'FREE', 'REAL', "
      "108000, 108500, 4096, 0, 0, 0, NULL, '{}');",
      "m_results.db"));
  ASSERT_EQ(t.memory.size(), 2u);
  EXPECT_EQ(t.memory.ts_ns[0], 105000);
  EXPECT_EQ(t.memory.bytes[0], 1048576);
  EXPECT_EQ(t.memory.device[0], 2);
  EXPECT_EQ(t.memory.allocated[0], -1);    // no allocator totals: the timeline is a running sum
  EXPECT_EQ(t.memory.bytes[1], -1048576);  // the free, in time order, sized by its address
  EXPECT_EQ(t.memory.device[1], 2);
  EXPECT_EQ(t.tracks[t.memory.track[1]].pid, 4000);
  EXPECT_EQ(t.record_counts.at("host memory allocations (not device memory)"), 1u);
  EXPECT_EQ(t.record_counts.at("virtual memory allocation records (not modelled)"), 1u);
  EXPECT_EQ(t.record_counts.at("frees of blocks not allocated on a GPU in the trace"), 1u);
}

// A run's directory: one database per process, merged; equal correlation ids of different
// processes never link across processes.
TEST(RocpdImporter, DirectoryOfDatabasesIsMerged) {
  std::string a = MakeDb(kData + "/rocpd_small.sql", "", "4000_results.db");
  std::string dir = std::filesystem::path(a).parent_path().string();
  std::filesystem::create_directories(dir + "/host");
  std::string b = MakeDb(kData + "/rocpd_small_pid2.sql", "", "4001_results.db");
  std::filesystem::rename(b, dir + "/host/4001_results.db");
  model::Trace t = Load(dir);
  EXPECT_EQ(t.kernels.size(), 6u);
  EXPECT_EQ(t.memops.size(), 4u);
  EXPECT_EQ(t.devices.size(), 1u);
  EXPECT_NE(t.meta.format_version.find("2 databases merged"), std::string::npos);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_NE(t.kernels.launch[i], model::kNoRow);
    int64_t pid = t.tracks[t.api.track[t.kernels.launch[i]]].pid;
    EXPECT_TRUE(pid == 4000 || pid == 4001);
  }
  // Each process launched its own 3 kernels.
  int from_4001 = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    from_4001 += t.tracks[t.api.track[t.kernels.launch[i]]].pid == 4001;
  EXPECT_EQ(from_4001, 3);
}

TEST(RocpdBadInput, DirectoryWithoutTraces) {
  std::string dir = testing::TempDir();
  auto r = ImportTrace(dir, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a directory without a trace"), std::string::npos);
}

TEST(RocpdBadInput, EmptyDatabase) {
  std::string path =
      MakeDb(kData + "/rocpd_small.sql",
             "DELETE FROM rocpd_kernel_dispatch_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001;"
             "DELETE FROM rocpd_memory_copy_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001;"
             "DELETE FROM rocpd_region_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001;"
             "DELETE FROM rocpd_sample_0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001;",
             "e_results.db");
  auto r = ImportTrace(path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("holds no events"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace rocpd_importer_test
}  // namespace gpuscope::import::rocm
