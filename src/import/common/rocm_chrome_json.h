#pragma once
// The Chrome-trace JSON that ROCm tools write from their databases: legacy rocprof's
// results.json (tblextr.py: string ts/dur, exact ns in args.BeginNs/EndNs) and rocmProfileData's
// rpd2tracing.py output (ops on "GPU<n>" processes with args.desc, API calls on OS threads,
// s/f flows). Events are read one by one, so a truncated file keeps its whole events.

#include <string>

#include "import/importer.h"

namespace gpuscope::import::rocm {

enum class ChromeJsonFlavor { kRocprof, kRpd2Tracing };

base::StatusOr<ImportResult> ReadRocmChromeJson(const std::string& path, ChromeJsonFlavor flavor);

}  // namespace gpuscope::import::rocm
