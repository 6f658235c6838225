#pragma once
// Test helpers of the importers' tests: a file imported whole (a failure fails the test and gives
// an empty trace), a row found by its name.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "import/registry.h"
#include "model/trace.h"

namespace gpuscope::import::testing {

inline model::Trace Load(const std::string& path) {
  auto trace = ImportTrace(path, {});
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  return trace.ok() ? std::move(trace).value() : model::Trace();
}

// The first row at or after `from` of `table` named `name`, or SIZE_MAX.
inline size_t Find(const model::Trace& t, const model::SliceColumns& table, std::string_view name,
                   size_t from = 0) {
  for (size_t i = from; i < table.size(); ++i) {
    if (t.str(table.name[i]) == name) return i;
  }
  return SIZE_MAX;
}

}  // namespace gpuscope::import::testing
