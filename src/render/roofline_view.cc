#include "render/roofline_view.h"

#include <cmath>

#include "base/text.h"
#include "render/result_table.h"
#include "render/schema_version.h"
#include "render/source_json.h"

namespace gpuscope::render {
namespace {

using analysis::RooflineReport;

// FLOPs and bytes are whole numbers: written exactly (a double shown with 6 digits would not be).
uint64_t Whole(double v) {
  return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(std::llround(v)) : 0;
}

// The ops table: the same rows for the terminal and CSV (JSON adds each op's kernels).
ResultTable OpsTable(const RooflineReport& r) {
  ResultTable t({Column::Flexible("op", "Op"),
                 {"shape", "Shape", Show::kText},
                 {"dtype", "Type", Show::kText},
                 {"calls", "Calls", Show::kCount},
                 {"gpu_ns", "GPU {unit}", Show::kDuration},
                 {"flops", "", Show::kCount},
                 {"bytes", "", Show::kCount},
                 {"tflops", "TFLOP/s", Show::kFixed1},
                 {"tbps", "TB/s", Show::kFixed3},
                 {"intensity", "FLOP/B", Show::kFixed1},
                 {"bound", "Bound", Show::kText},
                 {"percent_of_bound", "% of bound", Show::kFixed1}});
  for (const auto& op : r.ops) {
    t.AddRow({Cell::Text(op.op), Cell::Text(op.shape), Cell::Text(op.dtype), Cell::Uint(op.calls),
              Cell::Int(op.gpu_ns), Cell::Uint(Whole(op.flops)), Cell::Uint(Whole(op.bytes)),
              Cell::Real(op.tflops), Cell::Real(op.tbps), Cell::Real(op.intensity),
              op.bound.empty() ? Cell::Null() : Cell::Text(op.bound),
              op.percent_of_bound < 0 ? Cell::Null() : Cell::Real(op.percent_of_bound)});
  }
  return t;
}

ResultTable UnmodelledTable(const RooflineReport& r) {
  ResultTable t({Column::Flexible("op", "Op"),
                 {"calls", "Calls", Show::kCount},
                 {"kernels", "Kernels", Show::kCount},
                 {"gpu_ns", "GPU {unit}", Show::kDuration},
                 {"why", "Why", Show::kText}});
  for (const auto& u : r.unmodelled) {
    t.AddRow({Cell::Text(u.op), Cell::Uint(u.calls), Cell::Uint(u.kernels), Cell::Int(u.gpu_ns),
              Cell::Text(u.why)});
  }
  return t;
}

std::string Tflops(double v) { return base::FormatFixed(v, v < 100 ? 1 : 0); }

std::string DeviceLine(const analysis::RooflineDevice& d) {
  if (!d.peaks) {
    return "Device: " + (d.trace_name.empty() ? std::string("unknown") : d.trace_name) +
           " - no peaks (" + d.how + "); FLOPs and bytes are shown without percentages\n";
  }
  const auto& p = *d.peaks;
  std::string s = "Device: " + std::string(p.name) + " (" + d.how + ")\n  peaks: ";
  bool first = true;
  for (analysis::Precision pr : analysis::kPrecisions) {
    if (p.Peak(pr) <= 0) continue;
    s += (first ? "" : ", ") + std::string(analysis::PrecisionName(pr)) + " " + Tflops(p.Peak(pr));
    first = false;
  }
  s += " TFLOP/s (matrix); fp32 vector " + Tflops(p.vector_fp32_tflops) + "; HBM " +
       base::FormatFixed(p.hbm_tbps, 2) + " TB/s\n  source: " + std::string(p.source) + "\n";
  return s;
}

double Share(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace

std::string RooflineText(const model::Trace& t, const RooflineReport& r, const RooflineView& v,
                         size_t width) {
  std::string out = v.path + "  (" + t.meta.format + ")" +
                    (v.window.empty() ? "" : "  [" + v.window + "]") + "\n\n";
  out += DeviceLine(r.device) + "\n";
  if (r.kernel_ns == 0) return out + "No GPU kernels in this trace.\n";
  out += "Modelled: " + base::FormatFixed(Share(r.modelled_ns, r.kernel_ns), 1) +
         "% of the kernel time (" + base::FormatDuration(r.modelled_ns) + " of " +
         base::FormatDuration(r.kernel_ns) + ") in " + base::FormatCount(r.ops.size()) +
         " op signatures; % of bound = time at the roof / time taken\n\n";
  if (!r.ops.empty()) {
    ResultTable ops = OpsTable(r);
    out += ops.Text(width, !v.full_names, v.top);
    if (v.top != 0 && v.top < r.ops.size())
      out += "... " + base::FormatCount(r.ops.size() - v.top) + " more (--top 0 shows all)\n";
  }
  if (!r.unmodelled.empty()) {
    out += "\nUnmodelled kernel time (" +
           base::FormatFixed(Share(r.kernel_ns - r.modelled_ns, r.kernel_ns), 1) + "%):\n\n";
    out += UnmodelledTable(r).Text(width, !v.full_names, v.top);
    if (v.top != 0 && v.top < r.unmodelled.size())
      out += "... " + base::FormatCount(r.unmodelled.size() - v.top) + " more\n";
  }
  return out;
}

void WriteRooflineDevice(output::JsonWriter& w, const analysis::RooflineDevice& d) {
  w.BeginObject();
  w.Key("trace_name").String(d.trace_name);
  w.Key("identified").String(d.how);
  if (!d.peaks) {
    w.Key("name").Null();
    w.EndObject();
    return;
  }
  const auto& p = *d.peaks;
  w.Key("name").String(p.name);
  w.Key("key").String(p.key);
  w.Key("compute_units").Int(p.compute_units);
  w.Key("clock_mhz").Int(p.clock_mhz);
  w.Key("memory_gb").Double(p.memory_gb);
  w.Key("hbm_tbps").Double(p.hbm_tbps);
  w.Key("peak_tflops").BeginObject();
  for (analysis::Precision pr : analysis::kPrecisions) {
    w.Key(analysis::PrecisionName(pr));
    w.DoubleIf(p.Peak(pr) > 0, p.Peak(pr));
  }
  w.Key("vector_fp32").Double(p.vector_fp32_tflops);
  w.EndObject();
  w.Key("source").String(p.source);
  w.EndObject();
}

std::string RooflineJson(const model::Trace& t, const RooflineReport& r, const RooflineView& v) {
  output::JsonWriter w;
  BeginDocument(w);
  SourceJson(w, v.path, t.meta);
  if (!v.window.empty()) w.Key("window").String(v.window);
  w.Key("device");
  WriteRooflineDevice(w, r.device);
  w.Key("kernel_ns").Int(r.kernel_ns);
  w.Key("modelled_ns").Int(r.modelled_ns);
  w.Key("ops").BeginArray();
  for (const auto& op : r.ops) {
    w.BeginObject();
    w.Key("op").String(op.op);
    w.Key("shape").String(op.shape);
    w.Key("dtype").String(op.dtype);
    w.Key("family").String(op.family);
    w.Key("calls").Uint(op.calls);
    w.Key("flops").Uint(Whole(op.flops));
    w.Key("bytes").Uint(Whole(op.bytes));
    w.Key("gpu_ns").Int(op.gpu_ns);
    w.Key("ideal_ns").Double(op.ideal_ns);
    w.Key("tflops").Double(op.tflops);
    w.Key("tbps").Double(op.tbps);
    w.Key("intensity").Double(op.intensity);
    w.Key("bound");
    w.StringIf(!op.bound.empty(), op.bound);
    w.Key("percent_of_bound");
    w.DoubleIf(op.percent_of_bound >= 0, op.percent_of_bound);
    w.Key("kernels").BeginArray();
    for (const auto& k : op.kernels) {
      w.BeginObject();
      w.Key("name").String(base::Demangle(k.name));
      w.Key("count").Uint(k.count);
      w.Key("gpu_ns").Int(k.gpu_ns);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  UnmodelledTable(r).Json(w.Key("unmodelled"));
  w.EndObject();
  return w.str() + "\n";
}

std::string RooflineCsv(const RooflineReport& r) { return OpsTable(r).Csv(); }

}  // namespace gpuscope::render
