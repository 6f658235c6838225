#pragma once
// Importer: one per trace format, an entry of the registry's table. The registry asks each, in
// order, whether it recognises a file from its first bytes (never from the extension alone), lets
// the first that does read it, then finishes every import the same way (ImportTrace in
// registry.h): the format name, the partial-trace policy, the refusal of an empty trace, linking
// and timing lines.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_source.h"
#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::import {

struct ImportOptions {
  int threads = 0;  // parse threads; 0 = one per core (at most 8)
  // Plain files at least this large are parsed in parallel segments (tests lower it).
  uint64_t parallel_min_bytes = 16 << 20;
  // A folder whose files hold different runs (their events hours or days apart) is refused;
  // with this set it is read as one trace anyway (`--merge`).
  bool merge_runs = false;
  // The unit of a Chrome/Kineto JSON trace's ts and dur, as digits after the point that make
  // nanoseconds (9: s, 6: ms, 3: us, 0: ns); -1: the format's own (us). `--time-unit`, for files
  // written in another unit (model/plausibility.h says when the values look like one).
  int time_unit_digits = -1;
  // `--align-clocks`: a GPU clock whose ops start before their launch calls is shifted by the
  // linker (model/clock_alignment.h); TraceMetadata::clock_shifts says what moved.
  bool align_clocks = false;
  // The bytes a streaming JSON reader holds at a time; 0: its default (256 KiB), and a plain
  // Kineto file is then mapped and parsed in place instead. Tests and the fuzz target set it
  // (small, so that every event takes the oversize-item paths), which reads through the window.
  size_t json_window_bytes = 0;
  // A plain Kineto file is mapped and parsed in place (base::MappedFile); false reads it through
  // the window (a process without MappedFile's SIGBUS line: the Python module).
  bool map_files = true;
};

// What an importer read, before the registry finishes it.
struct ImportResult {
  // The events, not linked yet. A file that broke part-way keeps the events read before the
  // break, with trace.meta.import_error saying where and why.
  model::Trace trace;
  // Said (after the path) when the file holds no event: what it held instead and what to do.
  std::string empty_reason;
  // Phases of the read and their wall seconds, printed with GPUSCOPE_TIMING=1 (for bench/).
  std::vector<std::pair<std::string, double>> laps;
};

// One format gpuscope reads: its name (trace.meta.format, `info`'s "Format", `gpuscope help
// formats`), what it is, and its two entry points (declared in formats.h).
struct Importer {
  std::string_view name;
  std::string_view description;
  // Whether the file is in this format, from its first bytes or its SQLite schema.
  bool (*recognizes)(const base::FileSniff& sniff);
  // Reads the file. A failed Status means the file cannot be read at all (one line naming the
  // file, what is wrong and what to do).
  base::StatusOr<ImportResult> (*read)(const std::string& path, const ImportOptions& options);
};

}  // namespace gpuscope::import
