#pragma once
// What every fuzz target shares: writing the input where an importer can open it, building an
// SQLite database from fuzzed SQL under limits, and the invariants an imported trace must hold
// (a violation aborts, so libFuzzer keeps the input as a finding).

#include <cstddef>
#include <cstdint>
#include <string>

#include "import/importer.h"
#include "model/trace.h"

namespace gpuscope::fuzz {

// Writes the bytes to `name` in this process's scratch directory (in /dev/shm when there is one)
// and returns the path; the file is overwritten by the next input.
std::string WriteInput(const uint8_t* data, size_t size, const std::string& name);

// Runs the bytes as SQL into a fresh database file named `name` (scratch directory): the way a
// fuzzer reaches the SQLite importers through valid databases of odd content. ATTACH and other
// file access are denied and a statement is stopped after a fixed amount of work. Returns the
// path, or "" when nothing could be built.
std::string BuildDatabase(const uint8_t* data, size_t size, const std::string& name);

// Finishes a read like the registry does (validation, linking) and checks the invariants of the
// result: every event's times known, non-negative durations, every event inside the span, the
// span and per-stream busy time no larger than the span x streams. Aborts on a violation.
void FinishAndCheck(const import::Importer& importer, const std::string& path,
                    base::StatusOr<import::ImportResult> read);

// The invariants alone, for a trace from any source.
void CheckTrace(const model::Trace& t);

// The registry entry called `name` (aborts when there is none: a target names a format).
const import::Importer& ImporterNamed(const char* name);

// Single-threaded import options (a fuzz input is small; threads only add noise).
import::ImportOptions FuzzOptions();

}  // namespace gpuscope::fuzz
