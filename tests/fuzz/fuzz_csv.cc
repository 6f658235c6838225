// Fuzz target: the CSV and text importers (gpuscope events.csv, rocprofv3 CSV traces, legacy
// rocprof results.csv, --stats summaries, the raw intermediate text files) over the same bytes,
// each whether or not it would recognise them.
#include "fuzz/fuzz_support.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  struct Case {
    const char* importer;
    const char* file_name;  // some readers take the run or domain from the name
  };
  static const Case cases[] = {
      {"gpuscope-csv", "events.csv"},       {"rocprofv3-csv", "1_kernel_trace.csv"},
      {"rocprof-csv", "results.csv"},       {"rocprof-stats", "results.stats.csv"},
      {"rocprof-raw", "hcc_ops_trace.txt"},
  };
  for (const Case& c : cases) {
    std::string path = fuzz::WriteInput(data, size, c.file_name);
    const import::Importer& importer = fuzz::ImporterNamed(c.importer);
    fuzz::FinishAndCheck(importer, path, importer.read(path, fuzz::FuzzOptions()));
  }
  return 0;
}
