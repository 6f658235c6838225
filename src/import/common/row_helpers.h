#pragma once
// Small pieces every row-by-row importer (SQLite, CSV, text, JSON records) needs the same way.

#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

#include "model/trace.h"

namespace gpuscope::import {

// Tracks named by two numbers (pid/tid, device/queue), cached so that each row costs one map
// lookup instead of building the track's text key; `created` tells the caller a track is new
// (to give it a name or add its device).
class NumericTracks {
 public:
  NumericTracks(model::Trace* t, model::TrackKind kind) : t_(*t), kind_(kind) {}
  model::TrackId Get(int64_t a, int64_t b, bool* created = nullptr);

 private:
  model::Trace& t_;
  model::TrackKind kind_;
  std::map<std::pair<int64_t, int64_t>, model::TrackId> cache_;
};

// A host range's name and kind from the text a profiler recorded for it: the text
// torch.autograd.profiler.emit_nvtx gives an op (NVTX on CUDA, roctx on ROCm;
// format/emit_nvtx.h) names the op, with its input sizes as its args; any other text is an
// annotation of that name.
void NameRangeByText(model::Trace& t, std::string_view text, model::CpuRangeRow* row);

}  // namespace gpuscope::import
