#include "output/track_layout.h"

#include <map>
#include <set>

namespace gpuscope::output {

using model::TrackKind;

TrackLayout LayoutTracks(const model::Trace& t) {
  TrackLayout out;
  out.tracks.resize(t.tracks.size());
  int64_t next_synthetic = 100'000'000;
  std::map<std::string, int64_t> synthetic;  // non-numeric pid/tid text -> id
  auto id_of = [&](int64_t numeric, model::StringId text) {
    if (numeric >= 0) return numeric;
    auto [it, inserted] = synthetic.emplace(std::string(t.str(text)), next_synthetic);
    if (inserted) ++next_synthetic;
    return it->second;
  };
  std::set<int64_t> host_pids;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const model::Track& tr = t.tracks[i];
    if (tr.kind != TrackKind::kGpuStream) host_pids.insert(id_of(tr.pid, tr.pid_text));
  }
  bool gpu_clash = false;
  for (const model::Track& tr : t.tracks) {
    if (tr.kind == TrackKind::kGpuStream && host_pids.count(tr.device >= 0 ? tr.device : tr.pid))
      gpu_clash = true;
  }
  std::map<int32_t, std::string> device_names;
  for (const model::Device& d : t.devices) device_names[d.id] = d.name;

  int64_t max_pid = 0;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const model::Track& tr = t.tracks[i];
    TrackView& v = out.tracks[i];
    v.tid = id_of(tr.tid, tr.tid_text);
    std::string thread_name(t.str(tr.name));
    v.source_thread = thread_name;
    if (tr.kind == TrackKind::kGpuStream) {
      int64_t device = tr.device >= 0 ? tr.device : id_of(tr.pid, tr.pid_text);
      v.pid = gpu_clash ? 200'000'000 + device : device;
      auto dn = device_names.find(static_cast<int32_t>(device));
      v.process =
          "GPU " + std::to_string(device) +
          (dn != device_names.end() && !dn->second.empty() ? ": " + dn->second : std::string());
      v.thread = thread_name.empty() ? "stream " + std::string(t.str(tr.tid_text)) : thread_name;
      v.process_order = 1'000'000 + device;
      v.thread_order = v.tid;
    } else {
      v.pid = id_of(tr.pid, tr.pid_text);
      auto pn = t.process_names.find(tr.pid);
      std::string pid_text(t.str(tr.pid_text));
      if (pn != t.process_names.end() && tr.kind == TrackKind::kCpuThread)
        v.source_process = t.str(pn->second);
      if (tr.kind == TrackKind::kOther) {
        v.process = pid_text.empty() ? "other" : pid_text;
      } else {
        v.process = pn != t.process_names.end()
                        ? std::string(t.str(pn->second)) + " (pid " + pid_text + ")"
                        : "host process " + pid_text;
      }
      v.thread = thread_name.empty()
                     ? (tr.kind == TrackKind::kOther ? std::string(t.str(tr.tid_text))
                                                     : "thread " + std::string(t.str(tr.tid_text)))
                     : thread_name;
      v.process_order = tr.kind == TrackKind::kOther ? 2'000'000 : 0;
      // The main thread (tid == pid) first, then the others by id.
      v.thread_order = v.tid == v.pid ? -1 : v.tid;
    }
    max_pid = std::max(max_pid, v.pid);
  }
  // Host processes in pid order, before the GPUs.
  int64_t rank = 0;
  for (int64_t pid : host_pids) {
    for (size_t i = 0; i < t.tracks.size(); ++i) {
      if (t.tracks[i].kind == TrackKind::kCpuThread && out.tracks[i].pid == pid)
        out.tracks[i].process_order = rank;
    }
    ++rank;
  }
  out.spare_pid = std::max<int64_t>(max_pid + 1, 300'000'000);
  return out;
}

}  // namespace gpuscope::output
