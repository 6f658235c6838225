#pragma once
// LoadTrace: imports a trace for a command and reports recoverable problems on stderr once.

#include <string>

#include "base/status.h"
#include "cli/commands.h"
#include "model/trace.h"

namespace gpuscope::cli {

base::StatusOr<model::Trace> LoadTrace(const std::string& path, const CommonOptions& common);

}  // namespace gpuscope::cli
