#pragma once
// Importer: one per trace format. The registry asks each, in priority order, whether it
// recognises a file from its first bytes (never from the extension alone), then lets the first
// that does build the model.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/byte_source.h"
#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::import {

struct ImportOptions {
  int threads = 0;  // parse threads; 0 = one per core (at most 8)
  // Plain files at least this large are parsed in parallel segments (tests lower it).
  uint64_t parallel_min_bytes = 16 << 20;
};

class Importer {
 public:
  virtual ~Importer() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual bool Recognizes(const base::FileSniff& sniff) const = 0;
  // Reads the whole file into a linked Trace. A file that breaks part-way still yields the
  // events read before the break, with trace.meta.import_error saying where and why; a
  // failed Status means nothing usable was read.
  virtual base::StatusOr<model::Trace> Import(const std::string& path,
                                              const ImportOptions& options) const = 0;
};

}  // namespace gpuscope::import
