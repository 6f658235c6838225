#include "render/memory_view.h"

#include <algorithm>

#include "base/short_name.h"
#include "base/text.h"
#include "output/json_writer.h"
#include "output/text_table.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {

namespace {

std::string Bytes(int64_t b) { return b < 0 ? "-" : base::FormatBytes(b); }

// "+1.234 s" from the trace's start (appended: GCC 12 warns on "+" + string, -Wrestrict).
std::string Since(int64_t ns, int64_t origin) {
  std::string out = "+";
  out += base::FormatDuration(ns - origin);
  return out;
}

// One holder as a row of the table: op, Python line, bytes, blocks ("-": not counted).
std::string HolderRow(const analysis::MemoryHolder& h) {
  return base::StrFormat("  %-34s %-36s %12s %8s\n",
                         base::ShortenName(h.op.empty() ? "(outside any op)" : h.op, 34).c_str(),
                         base::ShortenName(h.python.empty() ? "-" : h.python, 36).c_str(),
                         Bytes(h.bytes).c_str(),
                         h.blocks ? base::FormatCount(h.blocks).c_str() : "-");
}

void HoldersJson(output::JsonWriter& w, const std::vector<analysis::MemoryHolder>& holders) {
  w.BeginArray();
  for (const auto& h : holders) {
    w.BeginObject().Key("op").String(h.op).Key("python").String(h.python);
    w.Key("bytes").Int(h.bytes).Key("blocks").Uint(h.blocks).EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string MemoryText(const model::Trace& t, const std::string& path,
                       const analysis::MemoryTimeline& m) {
  std::string out = base::StrFormat("%s  (%s)\n\n", path.c_str(), t.meta.format.c_str());
  if (m.devices.empty()) {
    out +=
        "No GPU memory events: the trace has no allocator events for a device. Record them "
        "with torch.profiler.profile(profile_memory=True) (PyTorch's [memory] events), "
        "rocprofv3 --memory-allocation-trace or nsys --cuda-memory-usage=true.\n";
    return out;
  }
  const int64_t origin = t.TimeSpan().first;
  for (const auto& d : m.devices) {
    out += base::StrFormat("GPU %d  (%s allocator events: %s allocations, %s frees)\n", d.device,
                           base::FormatCount(d.events).c_str(),
                           base::FormatCount(d.allocations).c_str(),
                           base::FormatCount(d.frees).c_str());
    auto kv = [&](const char* k, const std::string& v) {
      out += base::StrFormat("  %-18s %s\n", k, v.c_str());
    };
    kv("Peak allocated", Bytes(d.peak_allocated_bytes) + " at " + Since(d.peak_at_ns, origin) +
                             (d.totals_recorded ? "" : " (from the trace's start: no totals)"));
    if (d.peak_reserved_bytes >= 0)
      kv("Peak reserved",
         Bytes(d.peak_reserved_bytes) + " at " + Since(d.peak_reserved_at_ns, origin));
    kv("At the end", Bytes(d.final_allocated_bytes));
    if (d.growth_per_step_bytes > 0) {
      kv("Grows", Bytes(d.growth_per_step_bytes) +
                      " per steady step (allocated at each step's "
                      "end never falls: a leak or growing shapes)");
    }
    out += "\n";
    if (d.holders.empty())
      out += "  Held at the peak by: unknown (the events record no addresses)\n";
    if (!d.holders.empty())
      out += base::StrFormat("  %-34s %-36s %12s %8s\n", "Held at the peak by", "Python", "Bytes",
                             "Blocks");
    for (const auto& h : d.holders) out += HolderRow(h);
    if (d.growth_per_step_bytes > 0 && !d.kept.empty()) {
      out += "\n  Kept past the steady steps by:\n";
      for (const auto& h : d.kept) out += HolderRow(h);
    }
    if (!d.steps.empty()) {
      out += base::StrFormat("\n  %8s %14s %20s %12s %16s\n", "Step", "Ends at",
                             "Allocated at its end", "Allocations", "Allocated in it");
      for (const auto& st : d.steps) {
        out += base::StrFormat(
            "  %8lld %14s %20s %12s %16s\n", static_cast<long long>(st.iteration),
            Since(st.end_ns, origin).c_str(), Bytes(st.allocated_bytes).c_str(),
            base::FormatCount(st.allocations).c_str(), Bytes(st.allocated_in_step_bytes).c_str());
      }
    }
    out += "\n";
  }
  return base::WrapLongLines(out, std::max<size_t>(60, output::TerminalWidth()));
}

std::string MemoryJson(const model::Trace& t, const std::string& path,
                       const analysis::MemoryTimeline& m) {
  output::JsonWriter w;
  BeginDocument(w).Key("source").String(path).Key("format").String(t.meta.format);
  w.Key("devices").BeginArray();
  for (const auto& d : m.devices) {
    w.BeginObject().Key("device").Int(d.device).Key("events").Uint(d.events);
    w.Key("allocations").Uint(d.allocations).Key("frees").Uint(d.frees);
    w.Key("totals_recorded").Bool(d.totals_recorded);
    w.Key("peak_allocated_bytes").Int(d.peak_allocated_bytes).Key("peak_at_ns").Int(d.peak_at_ns);
    w.Key("peak_reserved_bytes").Int(d.peak_reserved_bytes);
    w.Key("peak_reserved_at_ns").Int(d.peak_reserved_at_ns);
    w.Key("final_allocated_bytes").Int(d.final_allocated_bytes);
    w.Key("growth_per_step_bytes").Int(d.growth_per_step_bytes);
    w.Key("holders");
    HoldersJson(w, d.holders);
    w.Key("kept");
    HoldersJson(w, d.kept);
    w.Key("steps").BeginArray();
    for (const auto& s : d.steps) {
      w.BeginObject().Key("iteration").Int(s.iteration).Key("end_ns").Int(s.end_ns);
      w.Key("allocated_bytes").Int(s.allocated_bytes).Key("allocations").Uint(s.allocations);
      w.Key("allocated_in_step_bytes").Int(s.allocated_in_step_bytes).EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray().EndObject();
  return w.str() + "\n";
}

std::string MemoryCsv(const analysis::MemoryTimeline& m) {
  ResultTable table({Column("device"), Column("peak_allocated_bytes"), Column("peak_at_ns"),
                     Column("peak_reserved_bytes"), Column("op"), Column("python"), Column("bytes"),
                     Column("blocks")});
  for (const auto& d : m.devices) {
    for (const auto& h : d.holders) {
      table.AddRow({Cell::Int(d.device), Cell::Int(d.peak_allocated_bytes), Cell::Int(d.peak_at_ns),
                    Cell::Int(d.peak_reserved_bytes), Cell::Text(h.op), Cell::Text(h.python),
                    Cell::Int(h.bytes), Cell::Uint(h.blocks)});
    }
  }
  return table.Csv();
}

}  // namespace gpuscope::render
