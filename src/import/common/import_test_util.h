#pragma once
// Test helpers of the importers' tests: a file imported whole (a failure fails the test and gives
// an empty trace), a row found by its name, bytes served in reads of a chosen size.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "base/byte_source.h"
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

// Serves a string in reads of at most `chunk` bytes, to split input at every possible place.
class ChunkedSource : public base::ByteSource {
 public:
  ChunkedSource(std::string data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  long long Read(char* dst, size_t cap) override {
    size_t n = std::min({cap, chunk_, data_.size() - pos_});
    std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return static_cast<long long>(n);
  }
  bool Seek(uint64_t off) override {
    pos_ = std::min<size_t>(off, data_.size());
    return true;
  }
  bool seekable() const override { return true; }
  uint64_t size() const override { return data_.size(); }

 private:
  std::string data_;
  size_t chunk_;
  size_t pos_ = 0;
};

}  // namespace gpuscope::import::testing
