#pragma once
// What a framework op was called with, as the profiler recorded it (PyTorch's record_shapes:
// "Input Dims", "Input type", "Concrete Inputs"). One contract for every side: importers store
// it on the op as one interned text (EncodeOpArgs), writers copy that text back into their
// format, and the work models (analysis/work/work_models.h) decode it (DecodeOpArgs).
//
// The stored text is a minified JSON object holding those keys as the trace wrote them, e.g.
// {"Input Dims":[[888,2880],[640,2880],[640]],"Input type":["c10::BFloat16",...]}. Shapes repeat
// across a run, so interning keeps one copy per distinct call signature.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::model {

inline constexpr std::string_view kArgInputDims = "Input Dims";
inline constexpr std::string_view kArgInputTypes = "Input type";
inline constexpr std::string_view kArgConcreteInputs = "Concrete Inputs";

// The collective's description PyTorch writes on record_param_comms ops (and on the NCCL/RCCL
// kernels they launch). Kept in the same stored text, after the shape keys.
inline constexpr std::string_view kArgCollectiveName = "Collective name";
inline constexpr std::string_view kArgCollectiveDtype = "dtype";
inline constexpr std::string_view kArgInMsgNelems = "In msg nelems";
inline constexpr std::string_view kArgOutMsgNelems = "Out msg nelems";
inline constexpr std::string_view kArgGroupSize = "Group size";
inline constexpr std::string_view kArgGroupName = "Process Group Name";
inline constexpr std::string_view kArgGroupDesc = "Process Group Description";
inline constexpr std::string_view kArgGroupRanks = "Process Group Ranks";
inline constexpr std::string_view kArgSeq = "Seq";
inline constexpr std::string_view kCollectiveArgKeys[] = {
    kArgCollectiveName, kArgCollectiveDtype, kArgInMsgNelems, kArgOutMsgNelems, kArgGroupSize,
    kArgGroupName,      kArgGroupDesc,       kArgGroupRanks,  kArgSeq};
bool IsCollectiveArgKey(std::string_view key);

// A collective as its op recorded it. Numbers the trace did not give (or gave as something else)
// stay -1; texts stay "".
struct CollectiveArgs {
  std::string name;   // "allreduce", "allgather", "reduce_scatter", "all_to_all", "broadcast"...
  std::string dtype;  // "Float", "BFloat16"
  std::string group;  // process group name ("0")
  std::string group_desc;
  std::string group_ranks;  // "[0, 1, 2, 3]" as written
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1, seq = -1;
  bool present() const { return !name.empty(); }
};

// A key and its raw JSON value, as the trace wrote them.
struct RawArg {
  std::string_view key;
  std::string_view json;
};

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
  CollectiveArgs collective;          // record_param_comms' description (empty: not one)
  bool empty() const {
    return shapes.empty() && types.empty() && concrete.empty() && !collective.present();
  }
};

// The stored text from the raw JSON values of the keys the trace gave ("" when absent), then the
// collective keys in `collective` (kCollectiveArgKeys only); "" when none was given. The values
// are copied minified, not interpreted.
std::string EncodeOpArgs(std::string_view dims_json, std::string_view types_json,
                         std::string_view concrete_json, std::span<const RawArg> collective = {});

// Parses stored text. Returns false (and leaves what it could read) when the text is damaged;
// values that are not what the key promises are kept as unknown entries.
bool DecodeOpArgs(std::string_view text, OpArgs* out);

// "888x2880, 2880x640" (tensor arguments only; lists as "[a, b]"): how tables show a call.
std::string ShapeText(const OpArgs& args);

}  // namespace gpuscope::model
