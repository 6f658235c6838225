#pragma once
// A directory given as a trace holds the several files of one run: rocprofv3 databases (one per
// process) or CSV traces, a legacy rocprof results.db, or the events.csv of `gpuscope convert`.

#include <string>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuscope::import {

base::StatusOr<model::Trace> ImportDirectory(const std::string& dir, const ImportOptions& options);

}  // namespace gpuscope::import
