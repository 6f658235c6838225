#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/diff/diff.h"
#include "analysis/diff/diff_gate.h"
#include "base/text.h"
#include "render/diff_view.h"
#include "session/outputs.h"

namespace gpuscope::session {

std::string DiffOutput(const model::Trace& before, const model::Trace& after,
                       const DiffRequest& a) {
  analysis::DiffOptions o;
  o.exact_names = a.exact_names;
  o.analyze.categories = a.categories;
  analysis::DiffReport r = analysis::Diff(before, after, o);
  const render::DiffView view{a.before, a.after, a.exact_names, a.full_names, a.top};
  if (a.format == "json") return render::DiffJson(r, view);
  if (a.format == "csv") return render::DiffCsv(r);
  return FitTerminal(render::DiffText(r, view), a.full_names);
}

}  // namespace gpuscope::session
