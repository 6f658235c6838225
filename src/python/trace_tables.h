#pragma once
// The model's event tables as Arrow record batches (python/arrow_export.h): kernels, memory
// operations, API calls, CPU ops, annotations, Python frames and iterations, with the link
// columns (launch_id, op_id, python_frame_id, parent_id, iteration) as nullable row ids into the
// other tables' `id` columns, and names as dictionary-encoded strings.

#include <memory>
#include <string>

#include "model/trace.h"
#include "python/arrow_export.h"

namespace gpuscope::python {

// Names of the tables ExportTable knows, comma-separated (for the error of an unknown one).
extern const char* const kTableNames;

// Describes table `which` of `trace` into the two structs; false when `which` is unknown.
// The trace must not change while the exported arrays live (they point into it).
bool ExportTable(const std::shared_ptr<model::Trace>& trace, const std::string& which,
                 ArrowSchema* schema, ArrowArray* array);

}  // namespace gpuscope::python
