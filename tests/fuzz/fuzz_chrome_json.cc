// Fuzz target: the other JSON importers (rocprofv3 JSON, legacy rocprof results.json,
// rpd2tracing JSON). Each reads the input whether or not it would recognise it: a reader must
// survive any bytes, not only the ones detection lets through.
#include "fuzz/fuzz_support.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::WriteInput(data, size, "1_results.json");
  for (const char* name : {"rocprofv3-json", "rocprof-json", "rpd2tracing-json"}) {
    const import::Importer& importer = fuzz::ImporterNamed(name);
    fuzz::FinishAndCheck(importer, path, importer.read(path, fuzz::FuzzOptions()));
  }
  return 0;
}
