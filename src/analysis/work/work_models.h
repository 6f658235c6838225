#pragma once
// Work models: the floating-point operations and the bytes an op must move, from the shapes and
// types it was called with (model/op_args.h), for the roofline (analysis/roofline/roofline.h). Each
// model covers a family of ops; its formula is written once, here, and shown by
// `gpuscope help roofline`. An op without a model, or whose arguments do not say enough, is
// reported with the reason - never guessed.
//
// Bytes are compulsory traffic: every input read once and every output written once (a kernel
// that re-reads from HBM moves more, which is what a low percentage then shows).

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/work/device_peaks.h"
#include "model/op_args.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct OpWork {
  double flops = 0;  // operations (multiply and add counted as 2)
  double bytes = 0;  // compulsory bytes read + written
  // Of those, the bytes written (the output), where the model says them (0: it does not): what
  // the next op of a fused chain would no longer read back (the fusion rule).
  double written = 0;
  // The peak that bounds it: matrix units in `precision`, or the vector FP32 rate.
  bool matrix = false;
  Precision precision = Precision::kFp32;
  std::string dtype;  // element type of the main input as the table shows it ("bf16")
};

// A model's answer for one call: the work, or why there is none.
struct WorkEstimate {
  bool ok = false;
  OpWork work;
  std::string why;  // when !ok: "no shapes recorded", "stride and padding not recorded", ...
};

struct WorkModel {
  std::string_view family;   // "gemm", "attention", ...
  std::string_view ops;      // the op names it covers, comma-separated
  std::string_view formula;  // for `gpuscope help roofline`
  WorkEstimate (*estimate)(std::string_view op, const model::OpArgs& args) = nullptr;
};

// Every model, in the order `help roofline` lists them.
const std::vector<WorkModel>& WorkModels();

// The model covering an op name (exact: "aten::addmm"); nullptr when none does.
const WorkModel* FindWorkModel(std::string_view op);

// Estimates one call. `args_text` is the op's stored args (model/op_args.h); "" = none recorded.
WorkEstimate EstimateWork(std::string_view op, std::string_view args_text);

// EstimateWork of a trace's CPU ops, made once per distinct (name, arguments) pair: a trace
// repeats its calls every step, and the device-copy and fusion rules ask once per kernel
// (2% of `analyze` on the B200 trace before).
class OpWorkCache {
 public:
  explicit OpWorkCache(const model::Trace& t) : t_(t) {}
  // The estimate of CPU range row `row` (its name and stored arguments).
  const WorkEstimate& Of(model::RowId row);

 private:
  const model::Trace& t_;
  std::unordered_map<uint64_t, WorkEstimate> cache_;  // key: name id << 32 | args id
};

// The innermost framework op at or above a CPU range row (following parents; annotations are
// not ops, nor are the ProfilerStep#N ranges 2021 Kineto traces record as ops); kNoRow when none.
model::RowId OpAround(const model::Trace& t, model::RowId cpu_row);

// The innermost framework op at or above a CPU range row (following parents) that has a work
// model; kNoRow when none has.
model::RowId ModelledOpAround(const model::Trace& t, model::RowId cpu_row);

// The element size in bytes and the roofline precision of a PyTorch "Input type" string
// ("c10::BFloat16" -> 2, bf16); false when it is not a known tensor element type.
bool ElementType(std::string_view type, int* bytes, Precision* precision, std::string* name);

}  // namespace gpuscope::analysis
