// Fuzz target: the byte sources (gzip inflation, read-ahead, the sniffer) over any bytes: every
// read returns at most what was asked, the stream ends, errors are reported, never a crash.
#include <cstdlib>
#include <vector>

#include "base/byte_source.h"
#include "fuzz/fuzz_support.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::WriteInput(data, size, "input.gz");
  (void)base::SniffFile(path);
  auto source = base::OpenByteSource(path);
  if (!source.ok()) return 0;
  auto ahead = base::MakeReadAheadSource(std::move(*source));
  std::vector<char> buf(4096);
  uint64_t total = 0;
  for (long long n; (n = ahead->Read(buf.data(), buf.size())) > 0;) {
    if (static_cast<size_t>(n) > buf.size()) std::abort();
    total += static_cast<uint64_t>(n);
    // zlib's ratio is at most ~1032:1; more means the source loops.
    if (total > 1100 * (size + 64)) std::abort();
  }
  return 0;
}
