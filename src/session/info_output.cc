#include <cstdio>
#include <string>

#include "analysis/timeline/summary.h"
#include "base/text.h"
#include "output/text_table.h"
#include "render/info_view.h"
#include "session/outputs.h"

namespace gpuscope::session {

std::string FitTerminal(std::string text, bool full_names) {
  text = base::EscapeControl(text);  // names cannot drive the terminal
  if (full_names) return text;
  return base::WrapLongLines(text, output::TerminalWidth());
}

std::string InfoOutput(model::Trace& trace, const std::string& format) {
  analysis::TraceSummary s = analysis::Summarize(trace);
  if (format == "json") return render::InfoJson(trace, s);
  if (format == "csv") return render::InfoCsv(trace, s);
  return FitTerminal(render::InfoText(trace, s), false);
}

}  // namespace gpuscope::session
