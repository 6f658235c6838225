#include "render/health_view.h"

#include "base/text.h"

namespace gpuscope::render {

std::string HealthText(const std::vector<analysis::HealthNote>& notes) {
  if (notes.empty())
    return "\nHealth             nothing the recording left out that gpuscope can see\n";
  std::string out = "\nHealth             " + base::FormatCount(notes.size()) +
                    " note(s) on how the trace was recorded\n";
  for (const auto& n : notes) {
    out += "  " + n.id + ": " + n.seen + ". Effect: " + n.effect +
           (n.trusted.empty() ? "" : ". Still trusted: " + n.trusted) + ". Record it: " + n.record +
           "\n";
  }
  return out;
}

std::string HealthLine(const std::vector<analysis::HealthNote>& notes) {
  if (notes.empty()) return "";
  std::string ids;
  for (const auto& n : notes) ids += (ids.empty() ? "" : ", ") + n.id;
  return ids + " (gpuscope info: what each costs, how to record it)";
}

void HealthJson(output::JsonWriter& w, const std::vector<analysis::HealthNote>& notes) {
  w.Key("health").BeginArray();
  for (const auto& n : notes) {
    w.BeginObject().Key("id").String(n.id).Key("seen").String(n.seen);
    w.Key("effect").String(n.effect).Key("record").String(n.record);
    // Where the note leaves the verdict unsupportable: what is still trusted (null: nothing
    // lost), and the times no finding is priced on.
    w.Key("trusted").StringIf(!n.trusted.empty(), n.trusted);
    w.Key("impossible_ns").BeginArray();
    for (const auto& [a, b] : n.impossible) w.BeginArray().Int(a).Int(b).EndArray();
    w.EndArray().EndObject();
  }
  w.EndArray();
}

}  // namespace gpuscope::render
