#pragma once
// A gzip-compressed file (an .rpd.gz or .sqlite.gz SQLite needs uncompressed) inflated into a
// temporary file that a signal while inflating does not leave behind.

#include <string>

#include "base/status.h"

namespace gpuscope::base {

// Whether the file starts with gzip's magic bytes.
bool IsGzipFile(const std::string& path);
// Inflates a gzip file into a new temporary file under $TMPDIR (else /tmp); returns its path.
StatusOr<std::string> InflateToTemp(const std::string& path);

}  // namespace gpuscope::base
