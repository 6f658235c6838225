#pragma once
// AtomicOutput: how every writer replaces its output. The file is written under a temporary name
// in the target's own directory and renamed over the target only when complete, so a failed or
// interrupted write (an error, a full disk, SIGINT/SIGTERM) leaves the target as it was and
// removes only the temporary file. Before anything is written the target is checked: only a
// missing path or a regular file (or a link to one: the link is replaced, never what it points
// to) may be replaced - a device, FIFO, socket or directory is refused - and an output that is
// one of the inputs (same device and inode, links followed) is refused. The target "-" is
// standard output: the file is written in $TMPDIR and copied there on Commit.

#include <string>
#include <vector>

#include "base/status.h"

namespace gpuscope::base {

class AtomicOutput {
 public:
  // `inputs`: the files this command reads (an output may not be one of them). `stdout_suffix`:
  // the ending the temporary file takes when the target is "-" (".json", ".rpd", ".html").
  static StatusOr<AtomicOutput> Begin(const std::string& target,
                                      const std::vector<std::string>& inputs = {},
                                      const std::string& stdout_suffix = "");
  AtomicOutput(AtomicOutput&& o) noexcept;
  AtomicOutput& operator=(AtomicOutput&&) = delete;
  ~AtomicOutput();  // removes the temporary file unless committed

  // Where to write: beside the target, ending like it (".json.gz" stays gzip for the writers).
  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  // Renames the finished file over the target (copies it to standard output for "-").
  Status Commit();
  bool to_stdout() const { return target_ == "-"; }

 private:
  AtomicOutput() = default;
  std::string target_, temp_;
  bool committed_ = false;
};

// The checks Begin makes, for a command to make before a long load: `target` is missing, a
// regular file or a link, and is none of `inputs` (same device and inode). One line otherwise.
Status CheckOutputPath(const std::string& target, const std::vector<std::string>& inputs);

// Registers a temporary file to be removed if the process is stopped by SIGINT or SIGTERM
// (the handler removes what is registered, then the signal takes its default course);
// Forget when the file is gone or kept. Async-signal-safe on the handler's side.
void RemoveOnSignal(const std::string& path);
void ForgetOnSignal(const std::string& path);

}  // namespace gpuscope::base
