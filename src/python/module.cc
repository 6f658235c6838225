// The `gpuscope._core` extension module: the same libraries as the CLI, bound with nanobind.
// Everything a command prints comes from session/outputs.h (the same bytes as the CLI's
// --format json), the tables from python/trace_tables.h. The GIL is released while a trace is
// read and while results are computed. The Python package (python/gpuscope) wraps this module.

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings/registry.h"
#include "analysis/job/rank_timeline_codec.h"
#include "base/allocator_tuning.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/gpuscope_main.h"
#include "python/trace_tables.h"
#include "render/export.h"
#include "render/schema_version.h"
#include "session/job_load.h"
#include "session/load.h"
#include "session/outputs.h"

namespace nb = nanobind;

namespace gpuscope::python {
namespace {

// Raised to Python as gpuscope.TraceError: one line naming the file, what is wrong, what to do.
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T>
T Take(base::StatusOr<T> v) {
  if (!v.ok()) throw TraceError(v.status().message());
  return std::move(*v);
}

// A loaded trace: the model (shared with the Arrow arrays exported from it) and what loading
// said (partial reads, recoverable problems), which the package passes to warnings.warn.
class PyTrace {
 public:
  PyTrace(std::string path, std::shared_ptr<model::Trace> t, std::vector<std::string> messages)
      : path_(std::move(path)), t_(std::move(t)), messages_(std::move(messages)) {}
  const std::string& path() const { return path_; }
  const std::shared_ptr<model::Trace>& trace() const { return t_; }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::string path_;
  std::shared_ptr<model::Trace> t_;
  std::vector<std::string> messages_;
};

session::CommonOptions Common(int threads, std::vector<std::string>* messages) {
  session::CommonOptions c;
  c.threads = threads;
  c.messages = messages;
  c.map_files = false;
  return c;
}

PyTrace Load(const std::string& path, int threads, bool merge, bool align_clocks) {
  std::vector<std::string> messages;
  std::shared_ptr<model::Trace> t;
  {
    nb::gil_scoped_release release;
    session::CommonOptions options = Common(threads, &messages);
    options.merge_runs = merge;
    options.align_clocks = align_clocks;
    t = std::make_shared<model::Trace>(Take(session::LoadTrace(path, options)));
  }
  return PyTrace(path, std::move(t), std::move(messages));
}

// Fills the two C structs at the addresses pyarrow gives (RecordBatch._import_from_c).
void Table(const PyTrace& t, const std::string& which, uintptr_t schema, uintptr_t array) {
  if (!ExportTable(t.trace(), which, reinterpret_cast<ArrowSchema*>(schema),
                   reinterpret_cast<ArrowArray*>(array)))
    throw std::invalid_argument("no table '" + which + "' (tables: " + kTableNames + ")");
}

std::string Info(const PyTrace& t) {
  nb::gil_scoped_release release;
  return session::InfoOutput(*t.trace(), "json");
}

// top: rows per table, 0 for all (as `--top`).
std::string Stats(const PyTrace& t, bool steady, const std::string& by, const std::string& phase,
                  const std::vector<std::string>& captures, bool mangled, size_t top) {
  session::StatsRequest r;
  r.path = t.path(), r.format = "json", r.steady = steady, r.by = by, r.phase = phase;
  r.captures = captures, r.mangled = mangled, r.top = top, r.top_given = top > 0;
  nb::gil_scoped_release release;
  return Take(session::StatsOutput(*t.trace(), r, Common(0, nullptr)));
}

// analyze with options named as the CLI's flags without the dashes ("idle_gap_us"): the rules'
// registry says what each means and its default.
// The JSON and the notes a CLI run would print on stderr (loading the captures, --phase over
// interleaved steps): the package warns them.
std::pair<std::string, std::vector<std::string>> Analyze(const PyTrace& t, const nb::dict& options,
                                                         const std::vector<std::string>& captures,
                                                         const std::string& phase,
                                                         const std::string& device,
                                                         size_t evidence) {
  session::AnalyzeRequest r;
  r.path = t.path(), r.format = "json", r.captures = captures, r.phase = phase;
  r.options.device = device, r.options.evidence = evidence;
  for (auto [key, value] : options) {
    std::string name = nb::cast<std::string>(key);
    bool found = false;
    for (const auto& rule : analysis::Rules()) {
      for (const auto& o : rule.options) {
        std::string flag(o.flag.substr(2));
        for (char& ch : flag) ch = ch == '-' ? '_' : ch;
        if (flag == name) o.apply(r.options, nb::cast<double>(value)), found = true;
      }
    }
    if (!found) throw std::invalid_argument("analyze: no option '" + name + "'");
  }
  nb::gil_scoped_release release;
  std::vector<std::string> messages;
  std::string out = Take(session::AnalyzeOutput(*t.trace(), r, Common(0, &messages)));
  return {std::move(out), std::move(messages)};
}

// `analyze DIR` (findings) or `stats DIR` on a folder of per-rank traces of one job.
// Returns the JSON and loading's warnings.
std::pair<std::string, std::vector<std::string>> Job(const std::string& path, bool findings,
                                                     int threads) {
  nb::gil_scoped_release release;
  std::vector<std::string> messages;
  std::vector<std::string> files = session::JobFiles(path);
  if (files.empty()) {
    Take(
        base::StatusOr<int>(base::Status::Error(
            path + ": not a folder of one job's per-rank traces (two or more *.json, *.json.gz, "
                   "*.rpd or *.sqlite files); load a single trace with gpuscope.load")));
  }
  auto job = Take(session::LoadJob(files, Common(threads, &messages)));
  return {session::JobOutput(std::move(job), path, "json", findings, false, {}),
          std::move(messages)};
}

// One rank of a job summarized where its trace is (a Dask worker): the bytes of its
// RankTimeline (analysis/job/rank_timeline_codec.h) and loading's warnings.
std::pair<nb::bytes, std::vector<std::string>> SummarizeRank(const std::string& path, int threads) {
  std::vector<std::string> messages;
  std::string bytes;
  {
    nb::gil_scoped_release release;
    bytes = analysis::EncodeRankTimeline(Take(session::LoadRank(path, Common(threads, &messages))));
  }
  return {nb::bytes(bytes.data(), bytes.size()), std::move(messages)};
}

// The job of ranks summarized by SummarizeRank: what `analyze DIR` (findings) or `stats DIR`
// prints as JSON, `path` naming the job.
std::string JobOfSummaries(const std::vector<nb::bytes>& summaries, const std::string& path,
                           bool findings) {
  std::vector<std::string_view> views;
  for (const auto& s : summaries) views.emplace_back(s.c_str(), s.size());
  nb::gil_scoped_release release;
  std::vector<analysis::RankTimeline> ranks;
  for (size_t i = 0; i < views.size(); ++i) {
    ranks.push_back(
        Take(analysis::DecodeRankTimeline(views[i], path + ": rank summary " + std::to_string(i))));
  }
  return session::JobOutput(Take(session::JobOfRanks(std::move(ranks))), path, "json", findings,
                            false, {});
}

std::string Diff(const PyTrace& before, const PyTrace& after, bool exact_names, size_t top) {
  session::DiffRequest r;
  r.before = before.path(), r.after = after.path(), r.format = "json";
  r.exact_names = exact_names, r.top = top;
  nb::gil_scoped_release release;
  return session::DiffOutput(*before.trace(), *after.trace(), r);
}

std::string Roofline(const PyTrace& t, const std::string& device, bool steady,
                     const std::vector<std::string>& captures) {
  session::RooflineRequest r;
  r.path = t.path(), r.format = "json", r.device = device, r.steady = steady, r.captures = captures;
  r.top = 0;
  nb::gil_scoped_release release;
  return Take(session::RooflineOutput(*t.trace(), r, Common(0, nullptr)));
}

std::string WhatIf(const PyTrace& t, double gpu_speedup, const std::vector<std::string>& kernels,
                   double copies, double host_speedup, bool no_syncs, bool graphs,
                   const std::vector<std::string>& fixes, const std::string& device) {
  session::WhatIfRequest r;
  r.path = t.path(), r.format = "json", r.kernels = kernels;
  r.scenario.gpu_speedup = gpu_speedup, r.scenario.copies = copies;
  r.scenario.host_speedup = host_speedup, r.scenario.no_syncs = no_syncs;
  r.scenario.graphs = graphs, r.scenario.fixes = fixes, r.scenario.device = device;
  nb::gil_scoped_release release;
  return Take(session::WhatIfOutput(*t.trace(), r));
}

std::string Memory(const PyTrace& t, size_t top) {
  session::MemoryRequest r;
  r.path = t.path(), r.format = "json", r.top = top;
  nb::gil_scoped_release release;
  return session::MemoryOutput(*t.trace(), r);
}

// (path, bytes, contents) of each file written.
std::vector<std::vector<std::string>> Convert(const PyTrace& t, const std::string& out,
                                              const std::string& to) {
  std::vector<render::ExportedFile> files;
  {
    nb::gil_scoped_release release;
    std::string format = Take(render::ExportFormat(out, to));
    if (t.trace()->summary_only())
      throw TraceError(t.path() + ": a summary without a timeline; convert needs the trace itself");
    render::ExportOptions options;
    options.inputs = {t.path()};  // never written over
    files = Take(render::ExportTrace(*t.trace(), out, format, options));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : files) rows.push_back({f.path, std::to_string(f.bytes), f.what});
  return rows;
}

size_t Report(const PyTrace& t, const std::string& out, const std::string& device,
              const std::vector<std::string>& captures) {
  nb::gil_scoped_release release;
  if (t.trace()->summary_only())
    throw TraceError(t.path() + ": a summary without a timeline; report needs the trace itself");
  return Take(
      session::WriteReport(*t.trace(), t.path(), out, device, captures, Common(0, nullptr)));
}

// `gpuscope ARGS...` in this process (the recorder of `gpuscope run`): its exit code.
int Main(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"gpuscope"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> ptrs;
  for (auto& a : argv) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  nb::gil_scoped_release release;
  return cli::Main(static_cast<int>(argv.size()), ptrs.data());
}

}  // namespace
}  // namespace gpuscope::python

NB_MODULE(_core, m) {
  using namespace gpuscope::python;
  m.doc() = "gpuscope's C++ core (use the gpuscope package, not this module)";
  gpuscope::base::TuneAllocator();
  nb::exception<TraceError>(m, "TraceError");
  nb::class_<PyTrace>(m, "Trace")
      .def_prop_ro("path", &PyTrace::path)
      .def_prop_ro("format", [](const PyTrace& t) { return t.trace()->meta.format; })
      .def_prop_ro("messages", &PyTrace::messages);
  m.def("load", &Load, nb::arg("path"), nb::arg("threads") = 0, nb::arg("merge") = false,
        nb::arg("align_clocks") = false);
  m.def("table", &Table);
  m.def("info", &Info);
  m.def("stats", &Stats, nb::arg("t"), nb::arg("steady"), nb::arg("by"), nb::arg("phase"),
        nb::arg("captures"), nb::arg("mangled"), nb::arg("top") = 0);
  m.def("analyze", &Analyze);
  m.def("diff", &Diff);
  m.def("job", &Job);
  m.def("summarize_rank", &SummarizeRank, nb::arg("path"), nb::arg("threads") = 0);
  m.def("job_of_summaries", &JobOfSummaries);
  m.def("roofline", &Roofline);
  m.def("whatif", &WhatIf);
  m.def("memory", &Memory);
  m.def("convert", &Convert);
  m.def("report", &Report);
  m.def("main", &Main);
  // `gpuscope help TOPIC --format F` (TraceError for an unknown topic).
  m.def("help", [](const std::string& topic, const std::string& format) {
    return Take(gpuscope::cli::HelpTopic(topic, format));
  });
  // The "schema_version" every JSON document carries (render/schema_version.h).
  m.attr("SCHEMA_VERSION") = gpuscope::render::kJsonSchemaVersion;
  // The name `gpuscope stats` shows for a recorded kernel name (Itanium names demangled).
  m.def("demangle", [](const std::string& name) { return gpuscope::base::Demangle(name); });
}
