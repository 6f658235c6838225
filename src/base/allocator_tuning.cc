#include "base/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <unistd.h>

#include "base/text.h"

namespace gpuscope::base {

namespace {
constexpr int kImportMmapThreshold = 4 << 20;
constexpr int kDefaultTrimThreshold = 128 << 10;  // glibc's, kept once the mmap one is set
}  // namespace

void TuneAllocator() {
#ifdef __GLIBC__
  // Setting the threshold also turns off its dynamic adjustment.
  mallopt(M_MMAP_THRESHOLD, kImportMmapThreshold);
#endif
}

ReuseLargeBlocks::ReuseLargeBlocks() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

ReuseLargeBlocks::~ReuseLargeBlocks() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, kImportMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kDefaultTrimThreshold);
  malloc_trim(0);
#endif
}

void ReleaseFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::string MemoryLimitText() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    return "an address-space limit of " + FormatCount(limit.rlim_cur >> 20) + " MiB (`ulimit -v`)";
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return "this machine's memory";
  double gib = static_cast<double>(pages) * static_cast<double>(page) / (1ULL << 30);
  return "this machine's " + FormatFixed(gib, 1) + " GiB of memory";
}

}  // namespace gpuscope::base
