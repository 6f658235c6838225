#pragma once
// ExportTrace: writes a trace as Chrome trace JSON, .rpd or CSV files (`gpuscope convert`, and
// `gpuscope run -o x.rpd`). The format comes from `to` or else from the output name.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"
#include "output/chrome_trace_writer.h"

namespace gpuscope::render {

struct ExportedFile {
  std::string path;
  std::string what;  // "12,345 events, 3,210 launch->GPU flows"
  uint64_t bytes = 0;
};

// What a write may touch: never one of `inputs`; in a directory, only files gpuscope wrote there
// (listed in the directory's .gpuscope-files): a user's file of the same name is refused unless
// `force`.
struct ExportOptions {
  std::vector<std::string> inputs;
  bool force = false;
  // Rows written after the iteration row into Chrome JSON (convert --annotate); other writers
  // refuse them.
  std::vector<output::MarkerRow> annotations;
};

// One output format `convert` (and `run -o`) writes.
struct Writer {
  std::string_view name;   // --to NAME
  std::string_view names;  // the output names that select it
  std::string_view description;
  base::StatusOr<std::vector<ExportedFile>> (*write)(const model::Trace& trace,
                                                     const std::string& out,
                                                     const ExportOptions& options);
};

// The writers, in the order `gpuscope help formats` lists them.
const std::vector<Writer>& Writers();

// "json", "rpd", "csv" from `to` (when not empty) or from `out`'s name: .json / .json.gz,
// .rpd, .csv or a directory (existing, or named with a trailing '/'). An error names `out` and
// the names it understands.
base::StatusOr<std::string> ExportFormat(const std::string& out, const std::string& to);

// Writes `trace` to `out` in `format`. Each file is written beside its target and renamed over
// it when complete (base::AtomicOutput): a failure leaves what was there untouched.
base::StatusOr<std::vector<ExportedFile>> ExportTrace(const model::Trace& trace,
                                                      const std::string& out,
                                                      const std::string& format,
                                                      const ExportOptions& options = {});

}  // namespace gpuscope::render
