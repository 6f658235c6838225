#pragma once
// The options of loading a trace that every command (and the Python module) shares.

#include <string>
#include <vector>

namespace gpuscope::session {

// Options every command that reads a trace shares.
struct CommonOptions {
  int threads = 0;
  bool align_clocks = false;  // shift GPU timelines whose ops start before their launch
  bool merge_runs = false;    // read a folder of different runs as one trace
  std::string time_unit;      // --time-unit: s, ms, us or ns for Chrome/Kineto JSON ("": us)
  std::string categories;     // --categories: a kernel category table replacing the built-in
  // Where loading's warnings and notes go: stderr when null, else appended here (the Python
  // module turns them into warnings.warn).
  std::vector<std::string>* messages = nullptr;
  // Plain files mapped and parsed in place (ImportOptions::map_files): the command line, whose
  // SIGBUS line covers a file that shrinks under the mapping. The Python module reads through
  // the window: a file rewritten under a notebook's read must end in an error, not the
  // interpreter.
  bool map_files = true;
};

}  // namespace gpuscope::session
