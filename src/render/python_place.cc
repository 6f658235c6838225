#include "render/python_place.h"

#include <charconv>

namespace gpuscope::render {
namespace {

// "dir/file.py(19): fn" split; false for other names.
struct Frame {
  std::string_view file, function;
  long line = 0;
};
bool Split(std::string_view name, Frame* f) {
  const size_t colon = name.rfind("): ");
  if (colon == std::string_view::npos) return false;
  const size_t open = name.rfind('(', colon);
  if (open == std::string_view::npos || open == 0) return false;
  std::string_view digits = name.substr(open + 1, colon - open - 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), f->line);
  if (ec != std::errc() || end != digits.data() + digits.size() || f->line < 0) return false;
  f->file = name.substr(0, open);
  f->function = name.substr(colon + 3);
  return true;
}

bool ModuleLevel(const Frame& f) { return f.line == 0 || f.function == "<module>"; }

}  // namespace

// Built by appending (GCC 12 warns -Wrestrict on "literal" + std::string&&).
std::string PythonPlace(std::string_view frame, std::string_view caller) {
  Frame f;
  if (!Split(frame, &f)) return std::string(frame);
  std::string out;
  if (ModuleLevel(f)) {
    out.append("module level of ").append(f.file);
  } else {
    out.append("in `").append(f.function).append("`, defined at ").append(f.file);
    out.append(":").append(std::to_string(f.line));
  }
  Frame c;
  if (caller.empty() || !Split(caller, &c) || ModuleLevel(f)) return out;
  out.append(", called from ");
  if (ModuleLevel(c)) {
    out.append("module level");
    if (c.file != f.file) out.append(" of ").append(c.file);
    return out;
  }
  out.append("`").append(c.function).append("`, defined at ");
  if (c.file == f.file)
    out.append("line ");
  else
    out.append(c.file).append(":");
  return out.append(std::to_string(c.line));
}

}  // namespace gpuscope::render
