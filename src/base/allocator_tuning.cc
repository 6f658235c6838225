#include "base/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gpuscope::base {

void TuneAllocator() {
#ifdef __GLIBC__
  // Setting the threshold also turns off its dynamic adjustment.
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

void ReleaseFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace gpuscope::base
