// `gpuscope diff BEFORE AFTER`: two runs compared - summary with a significance test, kernels /
// copies / API calls / CPU ops matched by name, findings resolved / persisting / new - and a CI
// gate (--fail-if-slower PCT: exit 1 on a significant regression beyond PCT).

#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/diff/diff.h"
#include "analysis/diff/diff_gate.h"
#include "base/text.h"
#include "cli/commands.h"
#include "render/diff_view.h"
#include "session/categories.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

struct DiffArgs : DiffRequest {
  double fail_if_slower = -1;
};

}  // namespace

CommandBody AddDiffCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<DiffArgs>();
  app.add_option("before", a->before, std::string("The run before the change. ") + kTraceHelp)
      ->required();
  app.add_option("after", a->after, "The run after the change")->required();
  AddFormatOption(app, &a->format);
  app.add_flag("--exact-names", a->exact_names,
               "Match kernels by their exact names (no normalisation)");
  app.add_flag("--full-names", a->full_names,
               "Show names whole instead of fitting them to the terminal");
  app.add_option("--top", a->top, "Rows per table (0 = all)")
      ->capture_default_str()
      ->check(WholeIn(0, 1000000000));
  app.add_option("--fail-if-slower", a->fail_if_slower,
                 "Exit 1 when the after run is significantly slower by more than PCT percent "
                 "(per-iteration latency; total kernel time without iterations)")
      ->check(Finite(0, 1e6));
  return [a, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto before, LoadTimeline(a->before, common, "diff"));
    GPUSCOPE_ASSIGN_OR_RETURN(auto after, LoadTimeline(a->after, common, "diff"));
    GPUSCOPE_ASSIGN_OR_RETURN(a->categories, CategoryRulesFor(common));
    std::fputs(DiffOutput(before, after, *a).c_str(), stdout);
    if (a->fail_if_slower >= 0) {
      analysis::DiffOptions o;
      o.exact_names = a->exact_names;
      analysis::DiffReport r = analysis::Diff(before, after, o);
      const analysis::GateResult gate = analysis::CheckGate(r, a->fail_if_slower);
      std::fflush(stdout);
      std::fprintf(stderr, "gpuscope: %s\n", gate.message.c_str());
      return gate.regression ? 1 : 0;
    }
    return 0;
  };
}

}  // namespace gpuscope::cli
