// The tracer's own diagnostics (DIAGNOSTIC_EVENT): its warnings and errors about the processes
// whose GPU work the export holds, kept as written for health (analysis/timeline).

#include <set>

#include "import/nsys/nsys_reader.h"

namespace gpuscope::import::nsys {
namespace {

// nsys's ENUM_DIAGNOSTIC_SEVERITY_LEVEL: 2 Warning, 3 Error (1 Info, 4 Verbose).
constexpr int64_t kWarning = 2, kError = 3;
constexpr size_t kMaxMessages = 20, kMaxChars = 300;

// One line, cut to kMaxChars: the tracer's texts hold newlines and tabs.
std::string OneLine(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool space = c == '\n' || c == '\t' || c == '\r' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
    if (out.size() >= kMaxChars) break;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

void NsysReader::ReadDiagnostics() {
  if (!db_.Has("DIAGNOSTIC_EVENT")) return;
  const ColumnSet diagnostics(db_, "DIAGNOSTIC_EVENT");
  if (!diagnostics.Has("severity") || !diagnostics.Has("text")) return;
  // The processes that ran GPU work: messages about the others (a shell, a compiler the program
  // started) say nothing of what this trace lacks.
  std::set<int64_t> gpu_pids;
  for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY"}) {
    if (!db_.Has(table) || !ColumnSet(db_, table).Has("globalPid")) continue;
    auto q = db_.Query(std::string("SELECT DISTINCT globalPid FROM ") + table);
    if (!q.ok()) continue;
    while (q->Step())
      if (auto pid = q->Integer(0)) gpu_pids.insert(*pid);
  }
  const bool by_pid = diagnostics.Has("globalPid");
  auto q = db_.Query(std::string("SELECT severity, text") + (by_pid ? ", globalPid" : "") +
                     " FROM DIAGNOSTIC_EVENT WHERE severity IN (2, 3)");
  if (!q.ok()) return;
  std::set<std::string> seen;
  while (q->Step() && t_.meta.tracer_messages.size() < kMaxMessages) {
    if (by_pid) {
      auto pid = q->Integer(2);
      if (!pid || !gpu_pids.count(*pid)) continue;
    }
    std::string text = OneLine(q->Text(1));
    // Its notes that an API was not used by the process ("No NVTX events collected. Does the
    // process use NVTX?") are no loss.
    if (text.empty() || text.find("Does the process use") != std::string::npos) continue;
    const auto severity = q->Integer(0);
    if (severity == kError) text += " (error)";
    if (severity != kWarning && severity != kError) continue;
    if (seen.insert(text).second) t_.meta.tracer_messages.push_back(std::move(text));
  }
}

}  // namespace gpuscope::import::nsys
