#pragma once
// AppendTrace: moves every event of `src` into `dst`, re-interning names and tracks.
// Used by importers that parse one file in parallel segments, each into its own Trace.
// Call before LinkTrace (links are not remapped).

#include "model/trace.h"

namespace gpuscope::model {

void AppendTrace(Trace& dst, Trace&& src);

}  // namespace gpuscope::model
