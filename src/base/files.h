#pragma once
// What gpuscope accepts as a path, in one place: inputs are regular files, directories (a run's
// files) or "-" (standard input); outputs get their missing parent directories created.

#include <string>

#include "base/status.h"

namespace gpuscope::base {

// Ok for a regular file or a directory; one line naming what `path` is instead (a FIFO, a
// device, a socket) and what to do - before anything opens it, so a FIFO without a writer
// cannot make gpuscope wait forever. A missing path is left to the opener's message.
Status CheckInputPath(const std::string& path);

// Creates the missing parent directories of an output file (every writer does, alike).
Status EnsureParentDirectory(const std::string& path);

}  // namespace gpuscope::base
