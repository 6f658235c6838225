// Fuzz target: the Kineto / PyTorch profiler JSON importer (the streaming reader, the event
// builder, the finish step), plain or gzip-compressed by the input's own first bytes. Read
// twice: in a 64-byte window too, where every event is an oversize item (squeezed, grown, its
// unread top-level members skipped a window at a time). Where the usual read is clean, the
// windowed one must be too, with the same events (on a broken file the skipper is lenient
// about unread members that the usual read rejects, so they may differ there).
#include "fuzz/fuzz_support.h"
#include "import/formats.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::WriteInput(data, size, "trace.json");
  auto whole = import::kineto::ReadKineto(path, fuzz::FuzzOptions());
  import::ImportOptions small = fuzz::FuzzOptions();
  small.json_window_bytes = 64;
  auto windowed = import::kineto::ReadKineto(path, small);
  if (whole.ok() && whole->trace.meta.import_error.empty() &&
      (!windowed.ok() || !windowed->trace.meta.import_error.empty() ||
       whole->trace.EventCount() != windowed->trace.EventCount()))
    __builtin_trap();  // the window changed what a clean file holds
  fuzz::FinishAndCheck(fuzz::ImporterNamed("kineto"), path, std::move(whole));
  return 0;
}
