// Fuzz target: the Kineto / PyTorch profiler JSON importer (the streaming reader, the event
// builder, the finish step), plain or gzip-compressed by the input's own first bytes.
#include "fuzz/fuzz_support.h"
#include "import/formats.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::WriteInput(data, size, "trace.json");
  fuzz::FinishAndCheck(fuzz::ImporterNamed("kineto"), path,
                       import::kineto::ReadKineto(path, fuzz::FuzzOptions()));
  return 0;
}
