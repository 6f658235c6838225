#pragma once
// Where a command's time goes, stage by stage, printed to stderr when GPUSCOPE_TIMING is set
// (for bench/ and for profiling by hand, not for users; the import prints its laps with Print).

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace gpuscope::base {

class StageTimer {
 public:
  StageTimer() : on_(Enabled()) {}
  static bool Enabled() { return std::getenv("GPUSCOPE_TIMING") != nullptr; }
  // One stage's line: "[timing] <what> <seconds> s <peak RSS so far> MB".
  static void Print(const char* what, double seconds) {
    std::fprintf(stderr, "[timing] %-40s %8.3f s %6ld MB peak\n", what, seconds, PeakRssMb());
  }
  // The process's peak resident set so far (VmHWM), in MB; -1 where /proc cannot say.
  static long PeakRssMb() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    std::fclose(f);
    return kb < 0 ? -1 : kb / 1024;
  }
  // The time since the last lap (or since construction), as Print's line.
  void Lap(const char* what) {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    Print(what, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  bool on() const { return on_; }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace gpuscope::base
