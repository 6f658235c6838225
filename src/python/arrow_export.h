#pragma once
// Arrow C Data Interface export (https://arrow.apache.org/docs/format/CDataInterface.html) of the
// model's columns, without linking libarrow: a RecordBatch is described by ArrowSchema /
// ArrowArray structs whose buffers point into the trace's own vectors where the types allow
// (times, ids, counts: zero copy) and into buffers owned by the export otherwise. pyarrow imports
// them with RecordBatch._import_from_c; the release callbacks drop the references that keep the
// trace alive.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_NULLABLE 2
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};
#endif
}

namespace gpuscope::python {

// One array being described: its format, buffers (validity first, as Arrow orders them),
// children, dictionary, and the owners that keep the buffers alive.
struct ArrowNode {
  std::string format, name;
  int64_t length = 0, null_count = 0;
  bool nullable = false;
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowNode>> children;
  std::unique_ptr<ArrowNode> dictionary;
  std::vector<std::shared_ptr<const void>> keep;
};

// Column helpers. `owner` keeps the memory `data` points into (the trace, or an owned vector).
std::unique_ptr<ArrowNode> Primitive(std::string name, const char* format, int64_t length,
                                     const void* data, std::shared_ptr<const void> owner);
// An owned int64 column where `valid[i] == 0` is null.
std::unique_ptr<ArrowNode> NullableInt64(std::string name, std::vector<int64_t> values,
                                         const std::vector<uint8_t>& valid);
// Strings as dictionary indices (int32 over the given ids, which must be < 2^31) into `dict`.
std::unique_ptr<ArrowNode> Dictionary(std::string name, int64_t length, const uint32_t* ids,
                                      std::shared_ptr<const void> owner,
                                      std::shared_ptr<const ArrowNode> dict_template);
// A utf8 / large_utf8 array of `strings` (the dictionary of the columns above).
std::shared_ptr<const ArrowNode> StringArray(const std::vector<std::string_view>& strings);
// fixed_size_list<uint32, 3> over `n` packed triples (grid, block).
std::unique_ptr<ArrowNode> Triples(std::string name, int64_t n, const uint32_t* data,
                                   std::shared_ptr<const void> owner);

// A struct node of `columns` (a record batch) exported into the two C structs.
void ExportBatch(std::vector<std::unique_ptr<ArrowNode>> columns, int64_t rows, ArrowSchema* schema,
                 ArrowArray* array);

}  // namespace gpuscope::python
