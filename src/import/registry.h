#pragma once
// The importer registry: the explicit list of formats gpuscope reads, in detection order, and
// the one place where every import is finished.

#include <string>
#include <string_view>
#include <vector>

#include "import/importer.h"

namespace gpuscope::import {

// Every format, in detection order.
const std::vector<Importer>& Importers();

// The importer named `name`, or nullptr.
const Importer* FindImporter(std::string_view name);

// Detects the format of `path` (a file or a run's directory) and imports it. Fails with one line
// naming the file, what is wrong and what to do (missing file, unknown format, nothing usable).
base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options);

// The name of the format `path` (a file) is in, as `info` shows it, or "" when none recognises
// it (or it cannot be read); reads only its first bytes and, for SQLite, its schema.
std::string FormatOf(const std::string& path);

// The common tail of every import: names the format after `importer`, refuses a trace without
// events (saying why), links the rest (aligning clocks when `options` ask) and prints the timing
// laps when GPUSCOPE_TIMING is set.
base::StatusOr<model::Trace> FinishImport(const Importer& importer, const std::string& path,
                                          ImportResult result, const ImportOptions& options);

}  // namespace gpuscope::import
