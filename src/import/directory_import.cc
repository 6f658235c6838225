#include "import/directory_import.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/text.h"
#include "import/formats.h"
#include "import/registry.h"

namespace gpuscope::import {
namespace {

// Files under `dir` (at most `depth` levels down: rocprofv3 writes <dir>/<host>/<pid>_*),
// sorted so that imports are deterministic.
std::vector<std::string> ListFiles(const std::string& dir, int depth) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= depth) it.disable_recursion_pending();
    if (it->is_regular_file(ec)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Refuses a folder whose files hold different runs (model::EventGap::SeparatesRuns); returns
// the trace as it is otherwise.
base::StatusOr<model::Trace> OneRun(const std::string& dir, base::StatusOr<model::Trace> read,
                                    const ImportOptions& options) {
  if (!read.ok() || options.merge_runs) return read;
  model::EventGap g = model::LargestEventGap(*read);
  if (!g.SeparatesRuns()) return read;
  return base::Status::Error(
      dir + ": its files hold different runs (no event for " + base::FormatDuration(g.gap()) +
      ", from " + base::FormatDuration(g.from_ns - g.first_ns) + " to " +
      base::FormatDuration(g.to_ns - g.first_ns) +
      " after the first event); give one run's files, or add --merge to read them as one trace");
}

// The tools whose files may lie together as one run: rocprofv3 writes CSV, JSON and rocpd
// databases of one run, legacy rocprof its results.db/.csv/.json.
std::string Family(const std::string& format) {
  if (format.rfind("rocprofv3", 0) == 0 || format == "rocpd") return "rocprofv3";
  if (format.rfind("rocprof-", 0) == 0) return "rocprof";
  return format;
}

// A folder read as one run (`format`) that also holds traces of other tools is refused in one
// line naming what was found: reading the run alone would leave the others out silently.
base::Status CheckOneFormat(const std::string& dir, const std::vector<std::string>& files,
                            const std::string& format) {
  std::map<std::string, int> others;  // format -> files
  for (const auto& f : files) {
    std::string name = std::filesystem::path(f).filename().string();
    bool candidate = name.ends_with(".json") || name.ends_with(".json.gz") ||
                     name.ends_with(".rpd") || name.ends_with(".rpd.gz") ||
                     name.ends_with(".sqlite") || name.ends_with(".db");
    if (!candidate) continue;
    std::string other = FormatOf(f);
    if (!other.empty() && Family(other) != Family(format)) ++others[other];
  }
  if (others.empty()) return base::Status::Ok();
  std::string found = format + " run";
  for (const auto& [name, n] : others)
    found += ", " + base::Counted(n, name + " file", name + " files");
  return base::Status::Error(dir + ": a folder mixing trace formats (" + found +
                             "); give one trace, one run's folder, or a folder of one job's "
                             "per-rank traces");
}

}  // namespace

base::StatusOr<model::Trace> ImportDirectory(const std::string& dir, const ImportOptions& options) {
  std::vector<std::string> files = ListFiles(dir, 3);
  std::vector<std::string> dbs, csvs;
  std::string legacy_db, events_csv;
  for (const auto& f : files) {
    std::string name = std::filesystem::path(f).filename().string();
    if (name == "events.csv") events_csv = f;
    if (name.ends_with("_results.db")) dbs.push_back(f);
    if (name.ends_with("_trace.csv")) csvs.push_back(f);
    if (name == "results.db") legacy_db = f;
  }
  if (!dbs.empty()) {
    GPUSCOPE_RETURN_IF_ERROR(CheckOneFormat(dir, files, "rocpd"));
    GPUSCOPE_ASSIGN_OR_RETURN(auto read, rocpd::ReadRocpdFiles(dbs, dir, options));
    return OneRun(dir, FinishImport(*FindImporter("rocpd"), dir, std::move(read), options),
                  options);
  }
  if (!csvs.empty()) {
    // One run = one (folder, file-name prefix); any of its trace CSVs reads all of them.
    std::map<std::string, std::string> runs;  // "folder/prefix" -> a file of that run
    for (const auto& f : csvs) {
      std::string prefix;
      if (!rocprofv3::RunPrefixOf(std::filesystem::path(f).filename().string(), &prefix)) continue;
      std::string key = (std::filesystem::path(f).parent_path() / prefix).string();
      auto [it, inserted] = runs.emplace(key, f);
      if (f.ends_with("kernel_trace.csv")) it->second = f;  // prefer the kernel trace
    }
    if (runs.size() == 1) GPUSCOPE_RETURN_IF_ERROR(CheckOneFormat(dir, files, "rocprofv3-csv"));
    if (runs.size() == 1) return OneRun(dir, ImportTrace(runs.begin()->second, options), options);
    if (runs.size() > 1) {
      std::string list;
      for (const auto& [key, file] : runs) {
        if (list.size() > 200) {
          list += ", ...";
          break;
        }
        list += (list.empty() ? "" : ", ") + key + "*";
      }
      return base::Status::Error(dir + ": a directory holding " + std::to_string(runs.size()) +
                                 " rocprofv3 CSV runs or processes (" + list +
                                 "); give one file of the run to read");
    }
  }
  if (!legacy_db.empty()) {
    GPUSCOPE_RETURN_IF_ERROR(CheckOneFormat(dir, files, "rocprof-db"));
    return ImportTrace(legacy_db, options);
  }
  if (!events_csv.empty()) {
    GPUSCOPE_RETURN_IF_ERROR(CheckOneFormat(dir, files, "gpuscope-csv"));
    return ImportTrace(events_csv, options);  // gpuscope convert -o dir/
  }                                           // gpuscope convert -o dir/
  return base::Status::Error(
      dir +
      ": a directory without a trace gpuscope recognises (looked for rocprofv3 "
      "*_results.db and *_trace.csv, legacy rocprof results.db, gpuscope events.csv, " +
      std::to_string(files.size()) + " files seen); give the trace file itself");
}

}  // namespace gpuscope::import
