#pragma once
// The kernel category rules a command uses: the built-in table, or the file `--categories`
// names (read once per command; an unreadable or malformed file is a fatal error naming it).

#include <memory>

#include "analysis/work/kernel_categories.h"
#include "base/status.h"
#include "session/options.h"

namespace gpuscope::session {

base::StatusOr<std::shared_ptr<const analysis::CategoryRules>> CategoryRulesFor(
    const CommonOptions& common);

}  // namespace gpuscope::session
