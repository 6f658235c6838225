#include "import/nsys/nsys_schema.h"

#include <span>

#include "format/nsys_enums.h"
#include "import/common/sqlite_columns.h"

namespace gpuscope::import::nsys {

using model::MemopKind;

EnumTable LoadEnum(const base::SqliteDb& db, std::string_view table) {
  EnumTable e;
  if (!db.Has(table)) return e;
  ColumnSet cols(db, table);
  auto q =
      db.Query("SELECT " + cols.Select({"id", "name", "label"}) + " FROM " + base::SqlIdent(table));
  if (!q.ok()) return e;
  e.present = true;
  while (q->Step()) e.rows[q->Int(0)] = {std::string(q->Text(1)), std::string(q->Text(2))};
  return e;
}

namespace {
EnumTable FromContract(std::span<const format::nsys::EnumRow> rows) {
  EnumTable e;
  e.present = true;
  for (const auto& r : rows) e.rows[r.id] = {std::string(r.name), std::string(r.label)};
  return e;
}
}  // namespace

EnumTable BuiltinMemcpyKinds() { return FromContract(format::nsys::kMemcpyOper); }
EnumTable BuiltinNvtxEventTypes() { return FromContract(format::nsys::kNvtxEventType); }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as nsys's cuda_api_sum shows it.
std::string_view StripVersionSuffix(std::string_view name) {
  auto pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 == name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, pos);
}

// ENUM_CUDA_MEMCPY_OPER name -> direction. Array and unified-memory copies fold into the
// direction they move data in; names, not numbers, so any renumbering is harmless.
MemopKind CopyDirection(std::string_view enum_name) {
  auto has = [&](std::string_view s) { return enum_name.find(s) != std::string_view::npos; };
  if (has("HTOD") || has("HTOA")) return MemopKind::kHtoD;
  if (has("DTOH") || has("ATOH")) return MemopKind::kDtoH;
  if (has("DTOD") || has("ATOA") || has("ATOD") || has("DTOA")) return MemopKind::kDtoD;
  if (has("HTOH")) return MemopKind::kHtoH;
  if (has("PTOP")) return MemopKind::kPtoP;
  return MemopKind::kOther;
}

}  // namespace gpuscope::import::nsys
