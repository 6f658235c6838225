#include "analysis/attribution/attribution.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/common/name_memo.h"

namespace gpuscope::analysis {

bool IsUserFrame(std::string_view n) {
  // "nn.Module: Linear_0" / "<built-in method ...>" are markers, not source lines.
  if (n.empty() || n.rfind("nn.Module:", 0) == 0 || n.front() == '<') return false;
  // Libraries and the standard library, by path (PyTorch writes "path(line): function").
  for (std::string_view lib : {"site-packages/", "dist-packages/", "/lib/python", "/usr/lib/",
                               "torch/", "transformers/", "<built-in", "<frozen"}) {
    if (n.find(lib) != std::string_view::npos) return false;
  }
  // Standard-library modules that appear without their directory.
  std::string_view file = n.substr(0, n.find('('));
  file = file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1);
  for (std::string_view std_module :
       {"threading.py", "runpy.py", "contextlib.py", "functools.py", "inspect.py", "abc.py",
        "typing.py", "enum.py", "copy.py", "weakref.py", "dataclasses.py", "selectors.py",
        "queue.py", "socket.py", "subprocess.py", "tempfile.py"}) {
    if (file == std_module) return false;
  }
  return true;
}

Attributor::Attributor(const model::Trace& t) : t_(t), user_frame_(t.python.size(), model::kNoRow) {
  NameMemo user_name(t, IsUserFrame);
  const auto& py = t.python;
  // Parents start before their children, so after the linker's sort they come first.
  for (size_t f = 0; f < py.size(); ++f) {
    model::RowId p = py.parent[f];
    user_frame_[f] = user_name(py.name[f])
                         ? static_cast<model::RowId>(f)
                         : (p != model::kNoRow && p < f ? user_frame_[p] : model::kNoRow);
  }
}

model::RowId Attributor::UserFrameOfCpu(model::RowId row) const {
  for (int guard = 0; row != model::kNoRow && guard < 256; ++guard) {
    model::RowId f = UserFrame(t_.cpu.python_frame[row]);
    if (f != model::kNoRow) return f;
    row = t_.cpu.parent[row];
  }
  return model::kNoRow;
}

std::string Attributor::PythonOf(model::RowId row) const {
  model::RowId f = UserFrameOfCpu(row);
  return f == model::kNoRow ? std::string() : std::string(t_.str(t_.python.name[f]));
}

Where Attributor::Api(model::RowId api) const {
  Where w;
  if (api == model::kNoRow) return w;
  model::RowId op = t_.api.enclosing_op[api];
  if (op == model::kNoRow) return w;
  w.op = std::string(t_.str(t_.cpu.name[op]));
  w.python = PythonOf(op);
  return w;
}

std::string Attributor::PythonOfApi(model::RowId api) const {
  if (api == model::kNoRow) return "";
  if (t_.api.enclosing_op[api] != model::kNoRow) {
    std::string via_op = PythonOf(t_.api.enclosing_op[api]);
    if (!via_op.empty()) return via_op;
  }
  // The last frame on the call's thread that starts before it, then up its parents to the first
  // that contains the call: O(frames of other threads in between + depth).
  const auto& py = t_.python;
  int64_t ts = t_.api.start_ns[api];
  auto end = std::upper_bound(py.start_ns.begin(), py.start_ns.end(), ts);
  size_t f = static_cast<size_t>(end - py.start_ns.begin());
  while (f-- > 0 && py.track[f] != t_.api.track[api]) {
  }
  if (f == SIZE_MAX) return "";
  model::RowId r = static_cast<model::RowId>(f);
  for (int guard = 0; r != model::kNoRow && guard < 4096; ++guard) {
    if (py.end_ns(r) > ts) {
      model::RowId u = UserFrame(r);
      return u == model::kNoRow ? std::string() : std::string(t_.str(py.name[u]));
    }
    r = py.parent[r];
  }
  return "";
}

Where Attributor::Kernel(size_t k) const {
  if (graphs_ && k < graphs_->kernel_origin.size() && graphs_->kernel_origin[k] >= 0) {
    Where w = graphs_->origins[static_cast<size_t>(graphs_->kernel_origin[k])];
    w.kernel = std::string(t_.str(t_.kernels.name[k]));
    return w;
  }
  Where w = Api(t_.kernels.launch[k]);
  w.kernel = std::string(t_.str(t_.kernels.name[k]));
  return w;
}

Attributor::SiteIds Attributor::ApiSite(model::RowId api) const {
  SiteIds s;
  const model::RowId op = api == model::kNoRow ? model::kNoRow : t_.api.enclosing_op[api];
  if (op == model::kNoRow) return s;
  s.op = t_.cpu.name[op];
  const model::RowId f = UserFrameOfCpu(op);
  if (f != model::kNoRow) s.python = t_.python.name[f];
  return s;
}

Attributor::SiteIds Attributor::KernelSite(size_t k) const {
  if (graphs_ && k < graphs_->kernel_origin.size() && graphs_->kernel_origin[k] >= 0) {
    SiteIds s;
    s.origin = graphs_->kernel_origin[k];
    return s;
  }
  return ApiSite(t_.kernels.launch[k]);
}

Where Attributor::SiteWhere(const SiteIds& s) const {
  if (s.origin >= 0) {
    Where w = graphs_->origins[static_cast<size_t>(s.origin)];
    w.kernel.clear();
    return w;
  }
  Where w;
  if (s.op != SiteIds::kNoName) w.op = std::string(t_.str(static_cast<model::StringId>(s.op)));
  if (s.python != SiteIds::kNoName)
    w.python = std::string(t_.str(static_cast<model::StringId>(s.python)));
  return w;
}

Where Attributor::Memop(size_t m) const {
  Where w = Api(t_.memops.launch[m]);
  w.kernel = std::string(t_.str(t_.memops.name[m]));
  return w;
}

std::vector<std::string> Attributor::Callers(const std::vector<std::string>& frame_names) const {
  std::unordered_map<std::string_view, size_t> wanted;
  for (size_t i = 0; i < frame_names.size(); ++i)
    if (!frame_names[i].empty()) wanted.emplace(frame_names[i], i);
  // The wanted names by their ids in the trace's pool (one name, one id): each frame is then
  // matched by its id, not by hashing its name's text (17 M instructions of `analyze` on the
  // 100 MB trace). A name the trace does not hold names no frame.
  std::unordered_map<model::StringId, size_t> wanted_ids;
  for (const auto& [name, i] : wanted)
    if (model::StringId id; t_.strings.Find(name, &id)) wanted_ids.emplace(id, i);
  // per wanted name: caller name id -> calls
  std::vector<std::unordered_map<model::StringId, size_t>> counts(frame_names.size());
  const auto& py = t_.python;
  for (size_t f = 0; f < py.size() && !wanted_ids.empty(); ++f) {
    auto it = wanted_ids.find(py.name[f]);
    if (it == wanted_ids.end()) continue;
    const model::RowId p = py.parent[f];
    const model::RowId u = p != model::kNoRow && p < f ? user_frame_[p] : model::kNoRow;
    if (u != model::kNoRow) ++counts[it->second][py.name[u]];
  }
  std::vector<std::string> out(frame_names.size());
  for (size_t i = 0; i < frame_names.size(); ++i) {
    if (frame_names[i].empty()) continue;
    const auto& c = counts[wanted.at(frame_names[i])];  // a name asked twice: its first ask's
    const auto top = std::max_element(c.begin(), c.end(), [](auto& a, auto& b) {
      return a.second != b.second ? a.second < b.second : a.first > b.first;
    });
    if (top != c.end()) out[i] = std::string(t_.str(top->first));
  }
  return out;
}

}  // namespace gpuscope::analysis
