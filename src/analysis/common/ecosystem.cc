#include "analysis/common/ecosystem.h"

#include <string_view>

namespace gpuscope::analysis {

Ecosystem DetectEcosystem(const model::Trace& t) {
  Ecosystem e;
  e.framework = t.python.size() > 0;
  for (size_t i = 0; i < t.cpu.size() && !e.framework; ++i) {
    e.framework =
        t.cpu.kind[i] == model::CpuRangeKind::kOp && t.str(t.cpu.name[i]).starts_with("aten::");
  }
  bool nvidia = false;
  for (const auto& d : t.devices) {
    e.hip |= d.vendor == model::Vendor::kAmd;
    nvidia |= d.vendor == model::Vendor::kNvidia;
  }
  if (!e.hip && !nvidia) {  // no device record: the runtime's own names say
    for (size_t i = 0; i < t.api.size() && i < 10000; ++i) {
      std::string_view n = t.str(t.api.name[i]);
      if (n.starts_with("hip")) e.hip = true;
      if (n.starts_with("hip") || n.starts_with("cu")) break;  // cuda*, cu* (driver)
    }
  }
  return e;
}

}  // namespace gpuscope::analysis
