#pragma once
// TuneAllocator: fixes glibc's mmap threshold for the process (called once at start by the CLI
// and the Python module).
//
// glibc raises its threshold to the size of each large block freed (up to 32 MiB), so after the
// import frees its first big columns, later ones come from the heap, where freed space stays
// resident: peak RSS grew 12-20% on the 1 GB benchmarks (issue 33). A fixed threshold keeps
// every block of 4 MiB or more in its own mapping, returned to the system when freed. No effect
// on other C libraries.

#include <string>

namespace gpuscope::base {

void TuneAllocator();

// Within its scope, blocks of up to 64 MiB come from the heap, and freed heap memory stays there
// to be reused (glibc's mmap and trim thresholds raised), instead of each large block being
// mapped and its pages faulted in afresh. An analysis allocates and frees many large
// short-lived arrays (the replay's buffers and copies, fixes combined); on the 1 GB benchmark
// trace `analyze` took 26 k fewer page faults and 20 ms less, holding 16 MB more at its peak.
// The import keeps the low threshold of TuneAllocator (its peak is what it holds). Leaving the
// scope restores it and hands the freed heap back. No effect on other C libraries.
class ReuseLargeBlocks {
 public:
  ReuseLargeBlocks();
  ~ReuseLargeBlocks();
  ReuseLargeBlocks(const ReuseLargeBlocks&) = delete;
  ReuseLargeBlocks& operator=(const ReuseLargeBlocks&) = delete;
};

// Returns the pages of freed heap memory to the system (glibc's malloc_trim), in every arena.
// Blocks under the mmap threshold freed by another thread than the one that made them (parallel
// segments merged on the main thread) otherwise stay resident in their thread's arena. A no-op
// on other C libraries.
void ReleaseFreedMemory();

// What bounds this process's memory, for the out-of-memory line: "an address-space limit of
// 586 MiB (`ulimit -v`)" when one is set, else "this machine's 125.7 GiB of memory".
std::string MemoryLimitText();

}  // namespace gpuscope::base
