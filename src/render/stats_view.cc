#include "render/stats_view.h"

#include "base/text.h"
#include "output/json_writer.h"
#include "render/schema_version.h"
#include "render/source_json.h"
#include "render/stats_tables.h"

namespace gpuscope::render {
namespace {

size_t Limit(const StatsView& v, size_t terminal_default) {
  return v.top_given ? v.top : terminal_default;
}

// A titled table of `total` rows, `t` built with the first `limit` (0: all) of them, with
// "... N more" when rows were left out.
void Section(std::string& out, const std::string& title, const ResultTable& t, size_t total,
             size_t limit, size_t width, bool fit, const char* more) {
  out += title + ":\n\n";
  if (t.rows() == 0) {
    out += "(none in this trace)\n";
    return;
  }
  out += t.Text(width, fit, limit);
  if (limit != 0 && limit < total) {
    out += "... " + base::FormatCount(total - limit) + more + " (--top 0 shows all)\n";
  }
}

bool Shows(const StatsView& v, std::string_view table, bool present = true) {
  return (v.by.empty() && present) || v.by == table;
}

}  // namespace

std::string SteadyWindowLabel(const analysis::SteadyState& ss) {
  if (ss.iterations.empty()) return "steady state: " + ss.source;
  return "steady state: " + base::FormatCount(ss.steady_count()) + " iterations after " +
         base::FormatCount(ss.warmup) + " warm-up (" + ss.source + ")";
}

std::string StatsText(const model::Trace& trace, const analysis::Stats& st, const StatsView& v,
                      size_t width) {
  std::string out = v.path + "  (" + trace.meta.format + ")" +
                    (v.window.empty() ? "" : "  [" + v.window + "]") + "\n\n";
  const bool all = v.by.empty();
  const bool fit = !v.full_names;
  // A trace without GPU work (a CPU-only run) gets one line for its three empty GPU tables.
  const bool no_gpu = all && st.kernels.empty() && st.memops.empty() && st.api.empty();
  if (no_gpu) {
    out +=
        "No GPU work recorded: no kernels, copies or runtime API calls in this trace (a "
        "CPU-only run).\n";
  }
  if (Shows(v, "kernels", !no_gpu)) {
    if (st.kernels.empty()) {
      out += "GPU kernels:\n\n(none in this trace)\n";
    } else {
      out += "GPU kernels: " + base::FormatCount(st.kernel_calls) + " dispatches of " +
             base::FormatCount(st.kernel_names) + " kernels, " +
             base::FormatDuration(st.kernel_total_ns) + " in total\n\n";
      size_t limit = Limit(v, 25);
      out += KernelTable(st, limit).Text(width, fit, limit);
      if (limit != 0 && limit < st.kernel_names) {
        out += "... " + base::FormatCount(st.kernel_names - limit) +
               " more kernels (--top 0 shows all)\n";
      }
    }
  }
  if (all && !no_gpu) out += "\n";
  if (Shows(v, "memops", !no_gpu))
    Section(out, "GPU memory operations", MemopTable(st), st.memops.size(), 0, width, true, "");
  if (all && !no_gpu) out += "\n";
  if (Shows(v, "api", !no_gpu))
    Section(out, "Runtime / driver API calls", ApiTable(st.api, Limit(v, 15)), st.api_names,
            Limit(v, 15), width, fit, " more");
  if (Shows(v, "os", !st.os_runtime.empty())) {
    if (all) out += "\n";
    Section(out, "OS runtime calls", ApiTable(st.os_runtime, Limit(v, 15)), st.os_runtime_names,
            Limit(v, 15), width, fit, " more");
  }
  if (all) out += "\n";
  if (Shows(v, "cpu"))
    Section(out, "CPU ops", CpuOpTable(st, Limit(v, 15)), st.cpu_op_names, Limit(v, 15), width, fit,
            " more");
  if (Shows(v, "counters", !st.counters.empty())) {
    if (all) out += "\n";
    out += "Counters:\n\n" + CounterTable(st).Text(width, true);
  }
  if (Shows(v, "memory", !st.memory.empty())) {
    if (all) out += "\n";
    Section(out, "GPU memory allocated and freed, by op", MemoryTable(st, Limit(v, 15)),
            st.memory.size(), Limit(v, 15), width, fit, " more");
  }
  if (v.by == "op")
    Section(out, "GPU time by launching op (graph kernels by their captured op)",
            OpTable(st, Limit(v, 25)), st.ops.size(), Limit(v, 25), width, fit, " more");
  if (v.by == "category")
    Section(out, "GPU time by kernel category (gpuscope help categories)",
            CategoryTable(st.categories), st.categories.size(), 0, width, fit, "");
  return out;
}

std::string StatsJson(const model::Trace& trace, const analysis::Stats& st, const StatsView& v) {
  output::JsonWriter w;
  if (v.stream) w.StreamTo(v.stream);
  BeginDocument(w);
  SourceJson(w, v.path, trace.meta, /*with_version=*/true);
  if (v.steady) w.Key("window").String(v.window);
  const size_t limit = v.top_given ? v.top : 0;
  if (Shows(v, "kernels")) KernelTable(st, limit).Json(w.Key("kernels"), limit);
  if (Shows(v, "memops")) MemopTable(st).Json(w.Key("memops"));
  if (Shows(v, "api")) ApiTable(st.api, limit).Json(w.Key("api"), limit);
  if (Shows(v, "os", !st.os_runtime.empty()))
    ApiTable(st.os_runtime, limit).Json(w.Key("os_runtime"), limit);
  if (Shows(v, "cpu")) CpuOpTable(st, limit).Json(w.Key("cpu_ops"), limit);
  if (Shows(v, "counters", !st.counters.empty())) CounterTable(st).Json(w.Key("counters"));
  if (Shows(v, "memory", !st.memory.empty())) MemoryTable(st, limit).Json(w.Key("memory"), limit);
  if (v.by == "op") OpTable(st, limit).Json(w.Key("ops"), limit);
  if (v.by == "category") CategoryTable(st.categories).Json(w.Key("categories"));
  w.EndObject();
  return w.str();
}

std::string StatsCsv(const analysis::Stats& st, const StatsView& v) {
  std::string table = v.by.empty() ? "kernels" : v.by;
  // Memory operations, counters and categories are short tables: always whole.
  size_t limit = table == "memops" || table == "counters" || table == "category"
                     ? 0
                     : (v.top_given ? v.top : 0);
  return StatsTable(st, table, limit).Csv(limit, v.stream);
}

}  // namespace gpuscope::render
