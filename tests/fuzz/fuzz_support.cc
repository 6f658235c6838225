#include "fuzz/fuzz_support.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "analysis/job/job.h"
#include "analysis/job/rank_timeline_codec.h"
#include "analysis/roofline/roofline.h"
#include "import/registry.h"

namespace gpuscope::fuzz {
namespace {

// Never destroyed (the exit handler that removes the directory runs after static destructors).
const std::string& ScratchDir() {
  static const std::string* dir = [] {
    std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    auto* d = new std::string(base + "/gpuscope-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }();
  return *dir;
}

[[noreturn]] void Violation(const std::string& what) {
  std::fprintf(stderr, "invariant violated: %s\n", what.c_str());
  std::abort();
}

// Denies what could touch files outside the database (ATTACH, VACUUM INTO) or load code.
int Authorizer(void*, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

// Stops a statement after ~1e7 virtual machine steps (a recursive CTE building a huge table).
int Progress(void* steps) {
  return ++*static_cast<int*>(steps) > 1000 ? 1 : 0;
}

}  // namespace

std::string WriteInput(const uint8_t* data, size_t size, const std::string& name) {
  std::string path = ScratchDir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) Violation("cannot write the scratch file " + path);
  if (size > 0 && std::fwrite(data, 1, size, f) != size) Violation("short write to " + path);
  std::fclose(f);
  return path;
}

std::string BuildDatabase(const uint8_t* data, size_t size, const std::string& name) {
  std::string path = ScratchDir() + "/" + name;
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return {};
  }
  sqlite3_set_authorizer(db, Authorizer, nullptr);
  int steps = 0;
  sqlite3_progress_handler(db, 10000, Progress, &steps);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  std::string sql(reinterpret_cast<const char*>(data), size);
  // Errors are expected (mutated SQL): whatever ran before the first error stays.
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return path;
}

void CheckTrace(const model::Trace& t) {
  const auto span = t.TimeSpan();
  const int64_t lo = span.first, hi = span.second;
  if (hi < lo) Violation("span ends before it starts");
  bool skip_clamped = t.meta.clamped_zero_events > 0;
  std::map<model::TrackId, int64_t> busy;
  auto slices = [&](const model::SliceColumns& s, const char* what, bool gpu) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t start = s.start_ns[i], dur = s.dur_ns[i];
      if (start == model::kUnknownTime || dur == model::kUnknownTime)
        Violation(std::string(what) + ": an unknown time reached the model");
      if (dur < 0) Violation(std::string(what) + ": negative duration");
      if (skip_clamped && start == 0 && dur == 0) continue;
      if (start < lo || dur > static_cast<__int128>(hi) - start) Violation(std::string(what) + ": outside the span");
      // A stream's total stays a number: span x events fits in int64 (span < 2^63 and inputs
      // are small), so a wrapped sum means a time escaped the checks.
      if (gpu && __builtin_add_overflow(busy[s.track[i]], dur, &busy[s.track[i]]))
        Violation(std::string(what) + ": a stream's busy time overflowed");
    }
  };
  slices(t.kernels, "kernel", true);
  slices(t.memops, "memop", true);
  slices(t.api, "api", false);
  slices(t.cpu, "cpu range", false);
  slices(t.python, "python frame", false);
  slices(t.gpu_ranges, "gpu range", false);
  for (size_t i = 0; i < t.memops.size(); ++i) {
    if (t.memops.bytes[i] < -1) Violation("memop: negative size reached the model");
  }
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (t.kernels.launch[i] != model::kNoRow && t.kernels.launch[i] >= t.api.size())
      Violation("kernel: launch link out of range");
  }
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.api.enclosing_op[i] != model::kNoRow && t.api.enclosing_op[i] >= t.cpu.size())
      Violation("api: enclosing op out of range");
  }
  for (const auto& [track, ns] : busy) {
    if (track >= t.tracks.size()) Violation("event on a track that does not exist");
  }
  // The roofline over whatever op arguments the input recorded: finite work, every kernel
  // accounted for once.
  analysis::RooflineOptions ro;
  ro.device = "MI300X";
  analysis::RooflineReport r = analysis::ComputeRoofline(t, ro, nullptr);
  int64_t listed = 0;
  for (const auto& op : r.ops) {
    if (!std::isfinite(op.flops) || !std::isfinite(op.bytes) || op.flops < 0 || op.bytes <= 0 ||
        !std::isfinite(op.percent_of_bound))
      Violation("roofline: a work estimate that is not a finite, positive number");
    listed += op.gpu_ns;
  }
  for (const auto& u : r.unmodelled) listed += u.gpu_ns;
  if (listed != r.kernel_ns) Violation("roofline: kernel time listed twice or lost");
  // The trace as two ranks of one job (each its own clock): whatever collectives it holds are
  // matched, aligned and priced; a rank's measures stay within its span and the replay's
  // savings are never negative.
  analysis::JobReport job = analysis::AnalyzeJob({{0, "a", &t}, {1, "b", &t}});
  // A rank's summary (what a Dask worker sends the driver) comes back from its bytes unchanged.
  analysis::RankTimeline summary = analysis::SummarizeRank(t, 0, "a");
  auto back = analysis::DecodeRankTimeline(analysis::EncodeRankTimeline(summary), "a");
  if (!back.ok() || !(*back == summary)) Violation("job: a rank summary changed in its bytes");
  for (const auto& rank : job.ranks) {
    if (rank.aligned && rank.offset_ns != 0) Violation("job: a trace against itself has an offset");
    if (rank.busy_ns < 0 || rank.idle_ns < 0 || rank.wait_ns < 0 || rank.comm_exposed_ns < 0)
      Violation("job: a negative time");
  }
  for (const auto& f : job.findings) {
    if (f.impact_ns < 0 || f.impact_ns > f.standalone_ns) Violation("job: a finding's impact");
  }
}

void FinishAndCheck(const import::Importer& importer, const std::string& path,
                    base::StatusOr<import::ImportResult> read) {
  // A refusal must say something (the CLI folds it into one line).
  if (!read.ok()) {
    if (read.status().message().empty()) Violation("an error without a message");
    return;
  }
  // Linked with --align-clocks: the shift and the re-sort see every hostile input too.
  import::ImportOptions options;
  options.align_clocks = true;
  auto trace = import::FinishImport(importer, path, std::move(*read), options);
  if (!trace.ok()) {
    if (trace.status().message().empty()) Violation("an error without a message");
    return;
  }
  CheckTrace(*trace);
}

const import::Importer& ImporterNamed(const char* name) {
  const import::Importer* importer = import::FindImporter(name);
  if (!importer) Violation(std::string("no importer named ") + name);
  return *importer;
}

import::ImportOptions FuzzOptions() {
  import::ImportOptions o;
  o.threads = 1;
  return o;
}

}  // namespace gpuscope::fuzz
