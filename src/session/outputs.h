#pragma once
// What each command prints for a loaded trace, as a string: one function per command, used by
// the command itself and by the Python module (src/python), so that both give the same bytes
// for the same request. The requests hold the command's options with the CLI's defaults.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/replay/scenario.h"
#include "base/status.h"
#include "model/trace.h"
#include "output/chrome_trace_writer.h"
#include "render/report_data.h"
#include "session/options.h"

namespace gpuscope::session {

// --device NAME: ok when NAME is a known device, else the error that lists them.
base::Status CheckDevice(const std::string& device);

// `report`: the HTML page for a loaded trace (named by `path`) written to `out`; its bytes.
// With `job`: a distributed job's report, `trace` being the rank it details.
base::StatusOr<size_t> WriteReport(const model::Trace& trace, const std::string& path,
                                   const std::string& out, const std::string& device,
                                   const std::vector<std::string>& captures,
                                   const CommonOptions& common,
                                   const render::ReportJob* job = nullptr);

// `info --format F` (the summary measures the model's memory, hence not const).
// A terminal output made safe and fitted to the terminal: control characters in names escaped
// ("\x1b"), longer lines wrapped with a hanging indent (names in tables are already shortened)
// unless the user asked for whole names.
std::string FitTerminal(std::string text, bool full_names);

std::string InfoOutput(model::Trace& trace, const std::string& format);

struct StatsRequest {
  std::string path;
  size_t top = 0;
  bool top_given = false;
  std::string by;  // "", kernels, memops, api, os, cpu, counters, op, category, memory
  std::string format = "table";
  bool full_names = false;
  bool mangled = false;
  bool steady = false;
  std::string phase;                  // only this phase's steps
  std::vector<std::string> captures;  // graph captures for --by op
  // JSON: written there as it is made (the CLI's stdout: millions of rows never sit whole in
  // memory); StatsOutput then returns the rest.
  std::FILE* stream = nullptr;
};
base::StatusOr<std::string> StatsOutput(const model::Trace& trace, const StatsRequest& r,
                                        const CommonOptions& common);

struct AnalyzeRequest {
  std::string path;
  std::string format = "table";
  bool full_names = false;
  std::string explain;
  std::vector<std::string> captures;
  std::string phase;
  analysis::AnalyzeOptions options;  // thresholds (the rules' defaults), device, evidence
};
base::StatusOr<std::string> AnalyzeOutput(const model::Trace& trace, const AnalyzeRequest& r,
                                          const CommonOptions& common);

struct DiffRequest {
  std::string before, after;  // the paths, as the output names them
  std::string format = "table";
  bool exact_names = false;
  bool full_names = false;
  size_t top = 15;
  std::shared_ptr<const analysis::CategoryRules> categories;  // null: the built-in table
};
std::string DiffOutput(const model::Trace& before, const model::Trace& after, const DiffRequest& r);

// `gpuscope whatif` (and gpuscope.whatif in Python): the scenario as the options give it.
// `convert --annotate`: the critical path of the steady window and each rule's findings at their
// events, as rows for the Chrome/Perfetto JSON (analyze's default options).
std::vector<output::MarkerRow> Annotations(const model::Trace& trace);

struct WhatIfRequest {
  std::string path;
  std::string format = "table";
  analysis::Scenario scenario;       // all but the kernel patterns
  std::vector<std::string> kernels;  // "REGEX=X"
};
base::StatusOr<std::string> WhatIfOutput(const model::Trace& trace, const WhatIfRequest& r);
// The request's scenario checked (speedups > 0, patterns that compile), before a trace is read.
base::Status CheckScenario(const WhatIfRequest& r);

// `gpuscope memory` (and gpuscope.memory in Python): the device memory timeline.
struct MemoryRequest {
  std::string path;
  std::string format = "table";
  size_t top = 10;  // holders listed per device
  bool full_names = false;
};
std::string MemoryOutput(const model::Trace& trace, const MemoryRequest& r);

struct RooflineRequest {
  std::string path;
  std::string device;
  std::string format = "table";
  size_t top = 25;
  bool full_names = false;
  bool steady = false;
  std::vector<std::string> captures;
};
base::StatusOr<std::string> RooflineOutput(const model::Trace& trace, const RooflineRequest& r,
                                           const CommonOptions& common);

}  // namespace gpuscope::session
