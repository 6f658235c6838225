#pragma once
// The importer registry: the explicit list of formats gpuscope reads, in detection order.

#include <memory>
#include <string>
#include <vector>

#include "import/importer.h"

namespace gpuscope::import {

const std::vector<std::unique_ptr<Importer>>& Importers();

// Detects the format of `path` and imports it. Fails with one line naming the file, what is
// wrong and what to do (missing file, directory, unknown format, nothing usable read).
base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options);

}  // namespace gpuscope::import
