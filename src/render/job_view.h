#pragma once
// A distributed job rendered (`gpuscope analyze|stats|info DIR` on a folder of per-rank traces):
// the job's summary, the per-rank table, the collectives, the straggler and the findings, for
// the terminal, as JSON and as CSV (the per-rank table; analyze: the findings).

#include <string>

#include "analysis/job/job.h"
#include "output/json_writer.h"

namespace gpuscope::render {

struct JobView {
  std::string path;
  bool full_names = false;
  bool findings = true;  // analyze: the straggler and the findings; stats/info: the measures only
};

std::string JobText(const analysis::JobReport& r, const JobView& v);
std::string JobJson(const analysis::JobReport& r, const JobView& v);
// The JSON object of JobJson, into `w` (the HTML report embeds it as "job").
void WriteJobJson(output::JsonWriter& w, const analysis::JobReport& r, const JobView& v);
std::string JobCsv(const analysis::JobReport& r, const JobView& v);

}  // namespace gpuscope::render
