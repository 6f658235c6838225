#pragma once
// What a framework op was called with, as the profiler recorded it (PyTorch's record_shapes:
// "Input Dims", "Input type", "Concrete Inputs"). One contract for every side: importers store
// it on the op as one interned text (EncodeOpArgs), writers copy that text back into their
// format, and the work models (analysis/work_models.h) decode it (DecodeOpArgs).
//
// The stored text is a minified JSON object holding those keys as the trace wrote them, e.g.
// {"Input Dims":[[888,2880],[640,2880],[640]],"Input type":["c10::BFloat16",...]}. Shapes repeat
// across a run, so interning keeps one copy per distinct call signature.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::model {

inline constexpr std::string_view kArgInputDims = "Input Dims";
inline constexpr std::string_view kArgInputTypes = "Input type";
inline constexpr std::string_view kArgConcreteInputs = "Concrete Inputs";

// One argument's shape: a tensor's dims, or (for a list of tensors, e.g. aten::cat's) several.
struct ArgShape {
  std::vector<int64_t> dims;               // a tensor (empty: a scalar / None / not a tensor)
  std::vector<std::vector<int64_t>> list;  // a list of tensors (dims stays empty)
  bool known = true;                       // false: the entry was not a list of integers
};

struct OpArgs {
  std::vector<ArgShape> shapes;       // per argument, "Input Dims"
  std::vector<std::string> types;     // per argument, "Input type" ("c10::BFloat16", "Scalar")
  std::vector<std::string> concrete;  // per argument, "Concrete Inputs" ("1", "[1, 1]", "")
  bool empty() const { return shapes.empty() && types.empty() && concrete.empty(); }
};

// The stored text from the raw JSON values of the keys the trace gave ("" when absent); ""
// when none was given. The values are copied minified, not interpreted.
std::string EncodeOpArgs(std::string_view dims_json, std::string_view types_json,
                         std::string_view concrete_json);

// Parses stored text. Returns false (and leaves what it could read) when the text is damaged;
// values that are not what the key promises are kept as unknown entries.
bool DecodeOpArgs(std::string_view text, OpArgs* out);

// "888x2880, 2880x640" (tensor arguments only; lists as "[a, b]"): how tables show a call.
std::string ShapeText(const OpArgs& args);

}  // namespace gpuscope::model
