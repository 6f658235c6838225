#include "render/job_view.h"

#include <algorithm>

#include "base/short_name.h"
#include "base/text.h"
#include "output/json_writer.h"
#include "output/text_table.h"
#include "render/analysis_json.h"
#include "render/analyze_view.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {
namespace {

ResultTable RanksTable(const analysis::JobReport& r) {
  ResultTable t({{"rank", "Rank", Show::kCount},
                 {"aligned", ""},
                 {"offset_ns", "Offset", Show::kDuration},
                 {"offset_mad_ns", "", Show::kDuration},
                 {"steps", "Steps", Show::kCount},
                 {"step_median_ns", "Step med. ({unit})", Show::kDuration},
                 {"busy_ns", "Busy ({unit})", Show::kDuration},
                 {"compute_ns", "Compute", Show::kDuration},
                 {"comm_ns", "Comm", Show::kDuration},
                 {"comm_exposed_ns", "Exposed", Show::kDuration},
                 {"idle_ns", "Idle", Show::kDuration},
                 {"wait_ns", "Wait", Show::kDuration},
                 {"transfer_ns", "Transfer", Show::kDuration},
                 {"collectives", ""},
                 {"last_arrivals", "Last", Show::kCount},
                 {"late_cost_ns", "Late cost", Show::kDuration},
                 Column::Flexible("path", "File")});
  for (const auto& s : r.ranks) {
    t.AddRow({Cell::Int(s.rank), Cell::Text(s.aligned ? "yes" : "no"),
              s.aligned ? Cell::Int(s.offset_ns) : Cell::Null(), Cell::Int(s.offset_mad_ns),
              Cell::Uint(s.steps), Cell::IntOrNull(s.step_median_ns), Cell::Int(s.busy_ns),
              Cell::Int(s.compute_ns), Cell::Int(s.comm_ns), Cell::Int(s.comm_exposed_ns),
              Cell::Int(s.idle_ns), Cell::Int(s.wait_ns), Cell::Int(s.transfer_ns),
              Cell::Uint(s.collectives), Cell::Uint(s.last_arrivals), Cell::Int(s.late_cost_ns),
              Cell::Text(s.path)});
  }
  return t;
}

ResultTable CollectivesTable(const analysis::JobReport& r) {
  ResultTable t({Column::Flexible("name", "Collective"),
                 {"group", "Group"},
                 {"dtype", "Dtype"},
                 {"bytes", "Bytes", Show::kCount},
                 {"ranks", "Ranks", Show::kCount},
                 {"count", "Count", Show::kCount},
                 {"time_ns", "Time ({unit})", Show::kDuration},
                 {"wait_ns", "Wait", Show::kDuration},
                 {"transfer_ns", "Transfer", Show::kDuration},
                 {"algbw_gbps", "algbw GB/s", Show::kFixed1},
                 {"busbw_gbps", "busbw GB/s", Show::kFixed1}});
  for (const auto& c : r.collectives) {
    t.AddRow({Cell::Text(c.name), Cell::Text(c.group), Cell::Text(c.dtype),
              Cell::IntOrNull(c.bytes), Cell::Int(c.ranks), Cell::Uint(c.count),
              Cell::Int(c.time_ns), Cell::Int(c.wait_ns), Cell::Int(c.transfer_ns),
              c.algbw_gbps < 0 ? Cell::Null() : Cell::Real(c.algbw_gbps),
              c.busbw_gbps < 0 ? Cell::Null() : Cell::Real(c.busbw_gbps)});
  }
  return t;
}

std::string SharePct(int64_t part, int64_t whole) {
  return base::FormatFixed(
             100.0 * static_cast<double>(part) / static_cast<double>(std::max<int64_t>(1, whole)),
             1) +
         "%";
}

std::string CauseText(const analysis::StragglerCause& c, bool full) {
  std::string name = full ? c.what : base::ShortenName(c.what, 72);
  std::string what = (c.kind == analysis::CauseKind::kKernel ? "kernel " : "host op ") + name;
  return what + " +" + base::FormatDuration(c.excess_ns) + " (" + base::FormatDuration(c.rank_ns) +
         " vs the others' median " + base::FormatDuration(c.others_ns) + ")";
}

}  // namespace

std::string JobText(const analysis::JobReport& r, const JobView& v) {
  std::string out;
  size_t width = std::max<size_t>(60, output::TerminalWidth());
  auto kv = [&](const char* k, const std::string& val) {
    out += base::StrFormat("  %-20s %s\n", k, val.c_str());
  };
  out +=
      base::StrFormat("%s  (distributed job: %zu ranks)\n\nJob\n", v.path.c_str(), r.ranks.size());
  kv("Ranks", base::FormatCount(r.ranks.size()) +
                  (r.world_size > 0 ? " (world size " + std::to_string(r.world_size) + ")" : "") +
                  ", clocks aligned to rank " + std::to_string(r.reference_rank));
  kv("Collectives", base::FormatCount(r.instances) + " instances matched by " + r.matched_by +
                        "; " + base::FormatCount(r.unmatched_calls) + " calls on one rank only");
  kv("Span", base::FormatDuration(r.span_ns) + " (first to last GPU work, aligned clocks)");
  kv("Collective time",
     "waiting for the last rank " + base::FormatDuration(r.wait_ns) + ", transfer " +
         base::FormatDuration(r.transfer_ns) +
         " (summed over ranks): " + SharePct(r.wait_ns, r.wait_ns + r.transfer_ns) + " waiting");
  kv("Overlap", SharePct(r.overlapped_comm_ns, r.comm_ns) +
                    " of communication kernel time runs beside compute");
  if (r.replayed_ns > 0) {
    kv("Replay", "job " + base::FormatDuration(r.replayed_ns) + " replayed vs " +
                     base::FormatDuration(r.observed_ns) + " observed");
    if (v.findings)
      kv("All fixes", "job " + base::FormatDuration(r.combined_ns) + ", saves " +
                          base::FormatDuration(r.replayed_ns - r.combined_ns));
  }
  if (v.findings) {
    if (r.straggler) {
      const auto& s = *r.straggler;
      kv("Straggler", "rank " + std::to_string(s.rank) + ": last at " + base::FormatCount(s.late) +
                          " of " + base::FormatCount(s.instances) +
                          " collectives, holding the others back " +
                          base::FormatDuration(s.cost_ns));
      for (const auto& c : s.causes) kv("  instead", CauseText(c, v.full_names));
      if (s.idle_excess_ns > 0)
        kv("  GPU idle", base::FormatDuration(s.idle_excess_ns) +
                             " more than the others' median in those phases");
    } else {
      kv("Straggler", "none (no rank is consistently last)");
    }
  }
  for (const auto& n : r.notes) kv("Note", n);
  out += "\nRanks (times on each rank's GPU; offset = its clock minus the reference's)\n";
  out += RanksTable(r).Text(width, !v.full_names);
  if (!r.collectives.empty()) {
    out += "\nCollectives (per kind and size; algbw = bytes / transfer time)\n";
    out += CollectivesTable(r).Text(width, !v.full_names, 25);
  }
  if (!v.findings) return out;
  out += "\nFindings (ranked by the time a fix would save in the job)\n";
  if (r.findings.empty()) {
    out += "\n  none: no rule fired above its threshold\n";
    return out;
  }
  out += FindingsText(r.findings, r.start_ns, width, v.full_names, "");
  return out;
}

std::string JobJson(const analysis::JobReport& r, const JobView& v) {
  output::JsonWriter w;
  WriteJobJson(w, r, v);
  return w.str();
}

void WriteJobJson(output::JsonWriter& w, const analysis::JobReport& r, const JobView& v) {
  BeginDocument(w).Key("source").String(v.path);
  w.Key("job").BeginObject();
  w.Key("ranks").Uint(r.ranks.size()).Key("world_size").Int(r.world_size);
  w.Key("reference_rank").Int(r.reference_rank).Key("matched_by").String(r.matched_by);
  w.Key("instances").Uint(r.instances).Key("unmatched_calls").Uint(r.unmatched_calls);
  w.Key("point_to_point").Uint(r.point_to_point);
  w.Key("start_ns").Int(r.start_ns).Key("span_ns").Int(r.span_ns);
  w.Key("wait_ns").Int(r.wait_ns).Key("transfer_ns").Int(r.transfer_ns);
  w.Key("comm_ns").Int(r.comm_ns).Key("overlapped_comm_ns").Int(r.overlapped_comm_ns);
  w.Key("observed_ns").Int(r.observed_ns).Key("replayed_ns").Int(r.replayed_ns);
  if (v.findings) w.Key("combined_ns").Int(r.combined_ns);
  w.Key("notes").BeginArray();
  for (const auto& n : r.notes) w.String(n);
  w.EndArray().EndObject();
  RanksTable(r).Json(w.Key("ranks"));
  CollectivesTable(r).Json(w.Key("collectives"));
  if (v.findings) {
    w.Key("straggler");
    if (!r.straggler) {
      w.Null();
    } else {
      const auto& s = *r.straggler;
      w.BeginObject().Key("rank").Int(s.rank).Key("late").Uint(s.late);
      w.Key("instances").Uint(s.instances).Key("cost_ns").Int(s.cost_ns);
      w.Key("idle_excess_ns").Int(s.idle_excess_ns).Key("causes").BeginArray();
      for (const auto& c : s.causes) {
        w.BeginObject()
            .Key("kind")
            .String(analysis::CauseKindName(c.kind))
            .Key("what")
            .String(c.what);
        w.Key("excess_ns").Int(c.excess_ns).Key("rank_ns").Int(c.rank_ns);
        w.Key("others_ns").Int(c.others_ns).EndObject();
      }
      w.EndArray().EndObject();
    }
    WriteFindingsJson(w.Key("findings"), r.findings);
  }
  w.EndObject();
}

std::string JobCsv(const analysis::JobReport& r, const JobView& v) {
  return v.findings ? FindingsCsv(r.findings) : RanksTable(r).Csv();
}

}  // namespace gpuscope::render
