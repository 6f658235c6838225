// Fuzz target for one SQLite schema family (compiled once per family with
// GPUSCOPE_FUZZ_FORMAT = the registry's name: nsys, rpd, rocpd, rocprof-db). The input is SQL,
// run into a fresh database (seeds: the fixtures' .sql files), so mutations reach the importer as
// valid databases with odd schemas, types and values; a damaged database file is the SQLite
// library's own concern.
#include "fuzz/fuzz_support.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::BuildDatabase(data, size, "trace.db");
  if (path.empty()) return 0;
  const import::Importer& importer = fuzz::ImporterNamed(GPUSCOPE_FUZZ_FORMAT);
  fuzz::FinishAndCheck(importer, path, importer.read(path, fuzz::FuzzOptions()));
  return 0;
}
