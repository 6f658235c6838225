#pragma once
// Which copies touch the host, and the host memory they touch: the one place the copy rules and
// the analyze summary (copies' pinning known or not) decide it.

#include <cstddef>

#include "model/trace.h"

namespace gpuscope::analysis {

inline bool HostSide(model::MemopKind k) {
  return k == model::MemopKind::kHtoD || k == model::MemopKind::kDtoH;
}
// The host side's memory kind of a host<->device copy.
inline model::MemoryKind HostMemory(const model::Trace& t, size_t memop) {
  return t.memops.kind[memop] == model::MemopKind::kHtoD ? t.memops.src[memop]
                                                         : t.memops.dst[memop];
}

}  // namespace gpuscope::analysis
