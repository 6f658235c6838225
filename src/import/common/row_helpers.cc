#include "import/common/row_helpers.h"

#include <string>

#include "format/emit_nvtx.h"
#include "model/op_args.h"

namespace gpuscope::import {

model::TrackId NumericTracks::Get(int64_t a, int64_t b, bool* created) {
  auto [it, inserted] = cache_.emplace(std::make_pair(a, b), 0);
  if (inserted) it->second = t_.InternTrack(kind_, std::to_string(a), std::to_string(b));
  if (created) *created = inserted;
  return it->second;
}

void NameRangeByText(model::Trace& t, std::string_view text, model::CpuRangeRow* row) {
  std::string_view op = format::emit_nvtx::OpName(text);
  row->kind = op.empty() ? model::CpuRangeKind::kAnnotation : model::CpuRangeKind::kOp;
  row->name = t.strings.Intern(op.empty() ? text : op);
  // emit_nvtx(record_shapes=True) writes the inputs' sizes, not their types.
  std::string_view sizes = op.empty() ? std::string_view() : format::emit_nvtx::Sizes(text);
  if (!sizes.empty()) row->args = t.strings.Intern(model::EncodeOpArgs(sizes, "", ""));
}

}  // namespace gpuscope::import
