#pragma once
// Attribution: the chain GPU op -> launching API call -> deepest enclosing CPU op -> innermost
// *user* Python frame, as links of the model (set by the linker). A user frame is one whose file
// is not inside torch, the standard library or site-packages ("inference.py(12): slow_activation").

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

struct Where {
  std::string python;  // innermost user Python frame, "" if unknown
  std::string op;      // deepest CPU op (or annotation) around the launch, "" if unknown
  std::string kernel;  // the GPU op's name, "" for host-side findings
  std::string graph;   // for a kernel replayed by a graph: "in graph (...)"; "" otherwise
  // The user frame that calls `python` most often ("" unknown). PyTorch names a frame by its
  // function's first line (the `def`), never by the line that calls: the caller narrows it.
  std::string caller;
};

struct GraphAttribution;

// True for frames of user code (not torch/, site-packages, the Python standard library,
// <built-in>).
bool IsUserFrame(std::string_view frame_name);

// Resolves attributions of one trace; the innermost user frame of every Python frame is
// computed once (O(frames)), so per-event lookups are a few link hops.
class Attributor {
 public:
  explicit Attributor(const model::Trace& t);
  // Innermost user frame at or above a Python frame row; kNoRow if none.
  model::RowId UserFrame(model::RowId frame) const {
    return frame == model::kNoRow ? model::kNoRow : user_frame_[frame];
  }
  // The user frame of a CPU range: its own frame link, else its parents'.
  model::RowId UserFrameOfCpu(model::RowId cpu_row) const;
  std::string PythonOf(model::RowId cpu_row) const;
  Where Api(model::RowId api_row) const;
  // The innermost user Python frame around a call (through its op, else by time on its thread).
  std::string PythonOfApi(model::RowId api_row) const;
  // Kernels replayed by graphs are attributed to their captured launch (graph_attribution.h);
  // `g` must outlive this Attributor.
  void SetGraphs(const GraphAttribution* g) { graphs_ = g; }
  Where Kernel(size_t kernel_row) const;
  Where Memop(size_t memop_row) const;
  // A call site as ids: what Api() or Kernel() names but the kernel, for grouping many events
  // without a string each; SiteWhere names a group once.
  struct SiteIds {
    static constexpr uint64_t kNoName = UINT64_MAX;
    int64_t origin = -1;                      // a kernel's graph's captured launch; -1: none
    uint64_t op = kNoName, python = kNoName;  // else the name ids of its op and user frame
    auto operator<=>(const SiteIds&) const = default;
  };
  SiteIds ApiSite(model::RowId api_row) const;
  SiteIds KernelSite(size_t kernel_row) const;
  Where SiteWhere(const SiteIds& site) const;  // Kernel()'s python, op and graph
  // Per frame name, the user frame (its name) that calls it most often: the innermost user frame
  // above each frame of that name ("" where none). One pass over the frames.
  std::vector<std::string> Callers(const std::vector<std::string>& frame_names) const;

 private:
  const model::Trace& t_;
  std::vector<model::RowId> user_frame_;
  const GraphAttribution* graphs_ = nullptr;
};

}  // namespace gpuscope::analysis
