#pragma once
// The text torch.autograd.profiler.emit_nvtx gives each op's range (NVTX on CUDA, roctx on ROCm):
// "aten::mm, seq = 3, op_id = 7, sizes = [[2, 3], [3, 4]], input_op_ids = [...]". The nsys and
// rocpd importers read an op (and its input sizes) from it; the nsys and rocpd writers write CPU
// ops in it, so that a converted trace reads back as the profiler would have recorded it.

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuscope::format::emit_nvtx {

// "aten::mm, seq = 3, ..." -> "aten::mm"; empty for any other text (a user annotation).
inline std::string_view OpName(std::string_view text) {
  auto comma = text.find(", ");
  if (comma == std::string_view::npos) return {};
  std::string_view rest = text.substr(comma + 2);
  for (std::string_view key : {"seq = ", "op_id = ", "sizes = ", "input_op_ids = "}) {
    if (rest.rfind(key, 0) == 0) return text.substr(0, comma);
  }
  return {};
}

// The "[[...], ...]" after ", sizes = " (emit_nvtx(record_shapes=True)); empty when absent.
inline std::string_view Sizes(std::string_view text) {
  constexpr std::string_view kKey = ", sizes = ";
  size_t at = text.find(kKey);
  if (at == std::string_view::npos) return {};
  std::string_view rest = text.substr(at + kKey.size());
  rest = rest.substr(0, rest.find(", input_op_ids = "));
  return !rest.empty() && rest.front() == '[' && rest.back() == ']' ? rest : std::string_view();
}

// An op's text as emit_nvtx writes it for an op without a sequence number: the name, its op id
// and, when known, the sizes ("[[2, 3], []]").
inline std::string Text(std::string_view name, uint64_t op_id, std::string_view sizes) {
  std::string s(name);
  s += ", op_id = ";
  s += std::to_string(op_id);
  if (!sizes.empty()) s.append(", sizes = ").append(sizes);
  return s;
}

}  // namespace gpuscope::format::emit_nvtx
