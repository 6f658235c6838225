// A rocprofv3 kernel trace converted to Chrome-trace JSON by another tool (scripts that turn
// kernel_trace.csv or a rocpd database into something Perfetto opens): kernel "X" events with
// `cat` "kernel" or "gpu", code-object symbol names ("_Z...kd"), the dispatch's grid and
// workgroup in args, and no metadata (no deviceProperties, no schemaVersion, no CPU ops). Kineto
// writes `cat` "kernel" too, so this reader is tried first and recognises the file by what
// Kineto never writes: symbol names ending in ".kd" and none of Kineto's keys.

#include <cctype>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "base/text.h"
#include "import/common/json_walker.h"
#include "import/common/rocm_row_builder.h"
#include "import/formats.h"

namespace gpuscope::import::rocprofv3 {
namespace {

// `"key"` followed by `:` and the quoted `value`, spaces allowed between them.
bool HasMember(std::string_view h, std::string_view key, std::string_view value) {
  // Built with append: GCC 12 misreads "\"" + string at -O3 (-Wrestrict).
  std::string quoted(1, '"'), quoted_value(1, '"');
  quoted.append(key).push_back('"');
  quoted_value.append(value).push_back('"');
  for (size_t p = h.find(quoted); p != std::string_view::npos; p = h.find(quoted, p + 1)) {
    size_t q = h.find_first_not_of(" \t\r\n", p + quoted.size());
    if (q == std::string_view::npos || h[q] != ':') continue;
    q = h.find_first_not_of(" \t\r\n", q + 1);
    if (q != std::string_view::npos && h.compare(q, quoted_value.size(), quoted_value) == 0)
      return true;
  }
  return false;
}

struct Event {
  std::string ph, name, cat, pid, tid, ts, dur, corr;
  model::Dim3 grid{0, 0, 0}, block{0, 0, 0};
};

// An arg's key in lower case without '_' and '-': "Grid_Size_X" -> "gridsizex".
std::string Folded(std::string_view k) {
  std::string out;
  for (char c : k)
    if (c != '_' && c != '-' && c != ' ') out += static_cast<char>(std::tolower(c));
  return out;
}

// Reads a value of three sizes ([x, y, z], "x,y,z" or one number: x) into `d`.
bool ReadDim3(JsonWalker& w, model::Dim3* d) {
  char c = 0;
  if (!w.Peek(&c)) return false;
  uint32_t* xyz[3] = {&(*d)[0], &(*d)[1], &(*d)[2]};
  if (c == '[') {
    size_t i = 0;
    return w.Array([&] {
      int64_t v = 0;
      if (!w.Int(&v)) return false;
      if (i < 3 && v > 0 && v <= UINT32_MAX) *xyz[i] = static_cast<uint32_t>(v);
      ++i;
      return true;
    });
  }
  std::string text;
  if (!w.Str(&text)) return false;
  std::string_view rest = text;
  for (size_t i = 0; i < 3 && !rest.empty(); ++i) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    auto v = base::ParseInt64(part);
    if (v && *v > 0 && *v <= UINT32_MAX) *xyz[i] = static_cast<uint32_t>(*v);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return true;
}

// One axis of a size given per axis ("Grid_Size_X": 1024).
bool ReadAxis(JsonWalker& w, uint32_t* axis) {
  int64_t v = 0;
  if (!w.Int(&v)) return false;
  if (v > 0 && v <= UINT32_MAX) *axis = static_cast<uint32_t>(v);
  return true;
}

bool ReadArgs(JsonWalker& w, Event* e) {
  return w.Object([&](std::string_view key) {
    const std::string k = Folded(key);
    if (k == "grid" || k == "gridsize") return ReadDim3(w, &e->grid);
    if (k == "block" || k == "workgroup" || k == "workgroupsize") return ReadDim3(w, &e->block);
    for (auto [prefix, dim] : {std::pair{std::string_view("gridsize"), &e->grid},
                               std::pair{std::string_view("grid"), &e->grid},
                               std::pair{std::string_view("workgroupsize"), &e->block},
                               std::pair{std::string_view("workgroup"), &e->block},
                               std::pair{std::string_view("block"), &e->block}}) {
      if (k.size() != prefix.size() + 1 || k.compare(0, prefix.size(), prefix) != 0) continue;
      const size_t axis = std::string_view("xyz").find(k.back());
      if (axis != std::string_view::npos) return ReadAxis(w, &(*dim)[axis]);
    }
    if (k == "correlationid" || k == "corrid" || k == "correlation") return w.Str(&e->corr);
    return w.Skip();
  });
}

bool ReadEvent(JsonWalker& w, Event* e) {
  return w.Object([&](std::string_view k) {
    if (k == "args") {
      char c = 0;
      if (!w.Peek(&c)) return false;
      return c == '{' ? ReadArgs(w, e) : w.Skip();
    }
    for (auto [name, field] :
         {std::pair{"ph", &e->ph}, std::pair{"name", &e->name}, std::pair{"cat", &e->cat},
          std::pair{"pid", &e->pid}, std::pair{"tid", &e->tid}, std::pair{"ts", &e->ts},
          std::pair{"dur", &e->dur}}) {
      if (k == name) return w.Str(field);
    }
    return w.Skip();
  });
}

// The number in a process or thread id ("GPU 2", "Agent 4", "3"); `fallback` when none.
int64_t IdNumber(std::string_view s, int64_t fallback) {
  size_t p = s.find_first_of("0123456789");
  return p == std::string_view::npos ? fallback : rocm::Num(s.substr(p), fallback);
}

bool IsKernelCat(std::string_view c) {
  return c == "kernel" || c == "gpu" || c == "Kernel" || c == "GPU" || c == "kernel_dispatch" ||
         c == "KERNEL_DISPATCH";
}

}  // namespace

bool RecognizesRocprofv3ChromeJson(const base::FileSniff& sniff) {
  std::string_view h = sniff.head;
  size_t i = h.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || (h[i] != '{' && h[i] != '[')) return false;
  if (h[i] == '{' && h.find("\"traceEvents\"") == std::string_view::npos) return false;
  // Kineto's keys, gpuscope's export, the ROCm tools' own JSON: never a converted kernel trace.
  for (std::string_view kineto :
       {"\"schemaVersion\"", "\"deviceProperties\"", "\"cpu_op\"", "\"cuda_runtime\"",
        "\"python_function\"", "\"gpu_user_annotation\"", "ProfilerStep#", "\"gpuscope",
        "\"rocprofiler-sdk-tool\"", "\"process_name\""}) {
    if (h.find(kineto) != std::string_view::npos) return false;
  }
  if (!HasMember(h, "cat", "kernel") && !HasMember(h, "cat", "gpu")) return false;
  // A code-object symbol: '.kd"' ends a name.
  return h.find(".kd\"") != std::string_view::npos;
}

base::StatusOr<ImportResult> ReadRocprofv3ChromeJson(const std::string& path,
                                                     const ImportOptions&) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  std::string doc, chunk(1 << 20, '\0');
  for (long long n; (n = src->Read(chunk.data(), chunk.size())) > 0;)
    doc.append(chunk.data(), static_cast<size_t>(n));
  const size_t size = doc.size();
  doc.append(kJsonPadding, '\0');
  ImportResult result;
  model::Trace& trace = result.trace;
  trace.meta.path = path;
  trace.meta.producer =
      "rocprofv3 kernel trace, converted to Chrome JSON by another tool (no metadata)";
  trace.meta.clock = "the converter's (us, as written)";
  size_t p = doc.find("\"traceEvents\"");
  p = p == std::string::npos ? doc.find('[') : doc.find('[', p);
  if (p == std::string::npos) p = 0;
  JsonWalker w(doc.data() + p, doc.data() + size);
  std::vector<Event> events;
  bool ok = w.Array([&] {
    Event e;
    if (!ReadEvent(w, &e)) return false;
    w.ClearArena();
    if (e.ph == "X") events.push_back(std::move(e));
    return true;
  });
  if (!ok) {
    trace.meta.import_error = "at byte " + std::to_string(p + w.error_offset()) + ": " + w.error();
  }
  rocm::RocmRowBuilder b(&trace);
  std::string cats;
  for (const Event& e : events) {
    auto ts = base::ParseMicrosToNs(e.ts), dur = base::ParseMicrosToNs(e.dur);
    if (!ts || !dur) {
      trace.problems.Add(model::ProblemKind::kRocprofJsonBadTs,
                         "event '" + e.name + "' has no usable ts or dur; skipped");
      continue;
    }
    if (!IsKernelCat(e.cat)) {
      ++trace.record_counts["events of other categories (left out)"];
      continue;
    }
    std::string cat(1, '"');
    cat.append(e.cat).push_back('"');
    if (cats.find(cat) == std::string::npos) cats.append(cats.empty() ? "" : ", ").append(cat);
    // "_Z...Ev.kd" -> the symbol without .kd -> its C++ name.
    const std::string name = base::Demangle(rocm::CleanKernelName(e.name));
    auto corr = base::ParseInt64(e.corr);
    b.Kernel(ts->ns, ts->ns + dur->ns, IdNumber(e.pid, 0), e.tid.empty() ? "0" : e.tid, name,
             corr && *corr > 0 ? static_cast<uint64_t>(*corr) : model::kNoCorrelation, e.grid,
             e.block);
  }
  trace.meta.format_version = "Chrome trace JSON of kernel dispatches";
  if (!cats.empty()) trace.meta.format_version.append(" (cat ").append(cats).append(")");
  return rocm::FinishLegacy(result, b,
                            "the JSON holds no timed kernel events (X events with cat \"kernel\" "
                            "or \"gpu\"); convert the rocprofv3 trace again");
}

}  // namespace gpuscope::import::rocprofv3
