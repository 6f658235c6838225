#pragma once
// TrackLayout: how the tracks of a trace appear in a viewer (Chrome trace JSON, the HTML
// report): numeric pid/tid for every track, process and thread labels, and the order the
// viewer should list them in (host processes first, then GPUs by device, streams by id).

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuscope::output {

struct TrackView {
  int64_t pid = 0;
  int64_t tid = 0;
  std::string process;  // display label: "python (pid 4242)", "GPU 0: NVIDIA H100"
  std::string thread;   // display label: "thread 4242", "stream 7"
  // The names the source itself gave ("" when it gave none): what a writer stores as names,
  // where the labels above are only for showing.
  std::string source_process;
  std::string source_thread;
  int64_t process_order = 0;
  int64_t thread_order = 0;
};

struct TrackLayout {
  std::vector<TrackView> tracks;  // by TrackId
  // Numeric ids that no track uses, for extra rows a writer adds (iteration markers).
  int64_t spare_pid = 0;
};

// Tracks whose pid/tid text is not a number get ids from 100000000 up; GPU devices whose
// number is also a host pid are moved to 200000000 + device so they never share a process row.
TrackLayout LayoutTracks(const model::Trace& trace);

// A GPU track's device id for a writer's device column: its device, else the viewer pid the
// layout gave it (a GPU the source did not number).
inline int64_t DeviceIdOf(const model::Trace& t, const TrackLayout& layout, model::TrackId track) {
  int32_t device = t.tracks[track].device;
  return device >= 0 ? device : layout.tracks[track].pid;
}

}  // namespace gpuscope::output
