#include "session/load.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "analysis/work/device_peaks.h"
#include "base/text.h"
#include "import/registry.h"
#include "model/plausibility.h"

namespace gpuscope::session {

std::string PartialReadWarning(const std::string& path, const std::string& error, uint64_t kept) {
  // Readers' messages may already start with the path: say it once.
  std::string_view what = error;
  if (what.starts_with(path + ": ")) what.remove_prefix(path.size() + 2);
  return "gpuscope: warning: " + path + ": " + base::OneLine(what) + "; kept the " +
         base::FormatCount(kept) + " events read before it";
}

void Tell(const CommonOptions& common, const std::string& line) {
  if (common.messages)
    common.messages->push_back(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

base::StatusOr<model::Trace> LoadTrace(const std::string& path, const CommonOptions& common) {
  import::ImportOptions options;
  options.threads = common.threads;
  options.merge_runs = common.merge_runs;
  options.align_clocks = common.align_clocks;
  options.map_files = common.map_files;
  if (!common.time_unit.empty()) {
    options.time_unit_digits = common.time_unit == "s"    ? 9
                               : common.time_unit == "ms" ? 6
                               : common.time_unit == "us" ? 3
                                                          : 0;
  }
  // A status line while a large file is read, on a terminal only (quiet when piped).
  std::error_code ec;
  uintmax_t size =
      std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  bool show = !common.messages && isatty(STDERR_FILENO) && size >= (64u << 20);
  auto t0 = std::chrono::steady_clock::now();
  if (show)
    std::fprintf(stderr, "[gpuscope] reading %s (%s)...", path.c_str(),
                 base::FormatBytes(static_cast<int64_t>(size)).c_str());
  auto trace = import::ImportTrace(path, options);
  if (show) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, " %.1f s\n", s);
  }
  if (!trace.ok()) return trace.status();
  // AMD devices the trace leaves unnamed are named from their architecture (gfx942 + 304 CUs).
  for (model::Device& d : trace->devices) {
    const bool placeholder =
        d.name.empty() || d.name.starts_with("gfx") || d.name == "(not described in the trace)";
    if (std::string named = analysis::NameFromArchitecture(d); placeholder && !named.empty())
      d.name = std::move(named);
  }
  const model::Trace& t = *trace;
  if (!t.meta.import_error.empty()) {
    Tell(common, PartialReadWarning(path, t.meta.import_error, t.EventCount()));
  }
  if (common.align_clocks) {
    // Applied by the linker (model/clock_alignment.h); said here.
    if (t.meta.clock_shifts.empty()) {
      Tell(common, "gpuscope: note: " + path +
                       (t.problems.Count(model::kLaunchOrder) > 0
                            ? ": --align-clocks: kernels run against their launch order "
                              "(impossible.launch_order), which no shift repairs; nothing shifted"
                            : ": --align-clocks: no GPU op starts before its launch; nothing "
                              "shifted"));
    }
    for (const model::ClockShift& s : t.meta.clock_shifts) {
      std::string line = "gpuscope: note: " + path + ": --align-clocks: GPU ";
      line += std::to_string(s.device) + " events shifted by +" + base::FormatDuration(s.shift_ns);
      Tell(common, line);
    }
  }
  if (!t.problems.empty()) {
    std::string kinds;
    for (const auto& [kind, e] : t.problems.entries()) {
      if (!kinds.empty()) kinds += ", ";
      kinds += kind + " x" + std::to_string(e.count);
    }
    std::string line = "gpuscope: note: " + path + ": ";
    line += base::FormatCount(t.problems.total()) + " recoverable problem(s): " + kinds;
    Tell(common, line + " (details: gpuscope info)");
  }
  return trace;
}

base::StatusOr<std::vector<analysis::CapturedGraph>> LoadCaptures(
    const std::vector<std::string>& paths, const CommonOptions& common) {
  std::vector<analysis::CapturedGraph> out;
  for (const auto& path : paths) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto capture, LoadTimeline(path, common, "--capture"));
    auto graphs =
        analysis::FindCapturedGraphs(capture, std::filesystem::path(path).filename().string());
    if (graphs.empty())
      return base::Status::Error(
          path +
          ": no graph capture in this trace (no launch calls between a stream's BeginCapture "
          "and EndCapture that name their kernel); give the trace recorded while the graphs "
          "were captured");
    out.insert(out.end(), graphs.begin(), graphs.end());
  }
  return out;
}

base::StatusOr<model::Trace> LoadTimeline(const std::string& path, const CommonOptions& common,
                                          const char* command) {
  auto trace = LoadTrace(path, common);
  if (trace.ok() && trace->summary_only()) {
    return base::Status::Error(
        path + ": a summary without a timeline (" + trace->meta.format_version +
        "); `gpuscope stats` prints it, `gpuscope " + command +
        "` needs the trace itself (results.db, results.csv, or the rocprofv3 output)");
  }
  return trace;
}

}  // namespace gpuscope::session
