#pragma once
// What an Nsight Systems export means: the globalTid/globalPid layout, the ENUM_* tables (read
// by name, never by number) and the versioned API names. emit_nvtx op ranges: format/emit_nvtx.h.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "base/sqlite_db.h"
#include "model/enums.h"

namespace gpuscope::import::nsys {

// globalTid / globalPid layout (nsys docs, cuda_kern_exec_trace.py): bits 24..47 the OS pid,
// bits 0..23 the OS tid, the high bits a VM/host id.
inline int64_t PidOf(int64_t global) { return (global >> 24) & 0xFFFFFF; }
inline int64_t TidOf(int64_t global) { return global & 0xFFFFFF; }
inline int64_t ProcessKey(int64_t global) { return global >> 24; }

// One ENUM_* table: id -> (name, label).
struct EnumTable {
  std::map<int64_t, std::pair<std::string, std::string>> rows;
  bool present = false;
  std::string_view Name(int64_t id) const {
    auto it = rows.find(id);
    return it == rows.end() ? std::string_view() : std::string_view(it->second.first);
  }
  std::string_view Label(int64_t id) const {
    auto it = rows.find(id);
    return it == rows.end() ? std::string_view() : std::string_view(it->second.second);
  }
};

EnumTable LoadEnum(const base::SqliteDb& db, std::string_view table);
// The enumerations older exports (DLProf era) lack, from their public, stable definitions
// (format/nsys_enums.h, which the writer writes too): copy kinds as CUPTI numbers them and the
// NVTX event types. Memory kinds have no such fallback (format/nsys_enums.h says why).
EnumTable BuiltinMemcpyKinds();
EnumTable BuiltinNvtxEventTypes();

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as nsys's cuda_api_sum shows it.
std::string_view StripVersionSuffix(std::string_view name);

// ENUM_CUDA_MEMCPY_OPER name -> direction. Array and unified-memory copies fold into the
// direction they move data in; names, not numbers, so any renumbering is harmless.
model::MemopKind CopyDirection(std::string_view enum_name);

}  // namespace gpuscope::import::nsys
