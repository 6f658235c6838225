#include "render/stages_view.h"

#include "base/text.h"
#include "output/text_table.h"

namespace gpuscope::render {

const char* StageKindName(analysis::StageKind kind) {
  switch (kind) {
    case analysis::StageKind::kSteps:
      return "steps";
    case analysis::StageKind::kPasses:
      return "passes";
    case analysis::StageKind::kLayers:
      return "layers";
    case analysis::StageKind::kUpdates:
      return "updates";
    default:
      return "once";
  }
}

bool StagesRepeat(const std::vector<analysis::Stage>& stages) {
  for (const auto& s : stages)
    if (s.kind != analysis::StageKind::kOnce) return true;
  return false;
}

namespace {

int64_t PerRepeat(const analysis::Stage& s) {
  return s.dur_ns / static_cast<int64_t>(std::max<size_t>(1, s.repeats));
}

}  // namespace

std::string StagesLine(const std::vector<analysis::Stage>& stages) {
  std::string out;
  for (const auto& s : stages)
    out += (out.empty() ? "" : " | ") + s.label + " " + base::FormatDuration(PerRepeat(s));
  return out;
}

std::string StagesTable(const std::vector<analysis::Stage>& stages, size_t width) {
  if (!StagesRepeat(stages)) return "";
  int64_t window = 0;
  for (const auto& s : stages) window += s.dur_ns;
  output::TextTable table;
  using A = output::TextTable::Align;
  table.AddColumn("Stage", A::kLeft);
  for (const char* h : {"Kernels", "Repeats", "Each", "Time", "Share"})
    table.AddColumn(h, A::kRight);
  table.AddColumn("What it is", A::kLeft, true);
  for (const auto& s : stages) {
    std::string what = s.kind == analysis::StageKind::kOnce     ? "runs once"
                       : s.kind == analysis::StageKind::kSteps  ? "steps, each after " + s.separator
                       : s.kind == analysis::StageKind::kPasses ? "passes, each holding layers"
                       : s.kind == analysis::StageKind::kUpdates ? "per-parameter optimizer updates"
                       : s.separator.empty()                     ? "layers (a block in a row)"
                                             : "layers, each after " + s.separator;
    table.AddRow({s.label, base::FormatCount(s.kernels), base::FormatCount(s.repeats),
                  base::FormatDuration(PerRepeat(s)), base::FormatDuration(s.dur_ns),
                  base::FormatFixed(100.0 * static_cast<double>(s.dur_ns) /
                                        static_cast<double>(std::max<int64_t>(1, window)),
                                    1) +
                      "%",
                  what});
  }
  return "\nStages (the window's kernels in launch order: what repeats and what runs once)\n" +
         table.Render(width, true);
}

void StagesJson(output::JsonWriter& w, const std::vector<analysis::Stage>& stages) {
  w.BeginArray();
  for (const auto& s : stages) {
    w.BeginObject().Key("label").String(s.label).Key("kind").String(StageKindName(s.kind));
    w.Key("separator").String(s.separator).Key("kernels").Uint(s.kernels);
    w.Key("repeats").Uint(s.repeats).Key("window_ns").Int(s.dur_ns);
    w.Key("start_ns").Int(s.start_ns).EndObject();
  }
  w.EndArray();
}

}  // namespace gpuscope::render
