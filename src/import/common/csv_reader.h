#pragma once
// CsvReader: streams the records of a CSV file (RFC 4180: quoted fields may hold commas,
// doubled quotes and newlines), plain or gzip, one record at a time. Fields are views into the
// reader's buffer, valid until the next call. Used by the rocprofv3 CSV and legacy rocprof
// importers, which always map columns by header name, never by position.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/byte_source.h"
#include "base/status.h"

namespace gpuscope::import {

class CsvReader {
 public:
  static base::StatusOr<CsvReader> Open(const std::string& path);
  // Reads the next record into `fields`; false at the end of the file or on a read error.
  // Empty lines are skipped (rocprofv2 writes one after each header).
  bool Next(std::vector<std::string_view>* fields);
  const std::string& error() const { return error_; }
  uint64_t line() const { return line_; }  // 1-based line of the last record returned

 private:
  explicit CsvReader(std::unique_ptr<base::ByteSource> src) : src_(std::move(src)) {}
  bool Fill();  // appends more bytes to buf_; false at the end

  std::unique_ptr<base::ByteSource> src_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  std::string error_;
  uint64_t line_ = 0, next_line_ = 1;
  std::deque<std::string> unquoted_;  // fields that needed "" -> " decoding (stable addresses)
};

// Column positions by header name ("Kernel_Name" -> 7); -1 when absent.
class CsvHeader {
 public:
  CsvHeader() = default;
  explicit CsvHeader(const std::vector<std::string_view>& names);
  int operator[](std::string_view name) const;
  bool Has(std::string_view name) const { return (*this)[name] >= 0; }
  size_t size() const { return index_.size(); }

 private:
  std::unordered_map<std::string, int> index_;
};

// The field at `col` or "" when the column is absent or the row is short.
inline std::string_view Field(const std::vector<std::string_view>& row, int col) {
  return col >= 0 && static_cast<size_t>(col) < row.size() ? row[col] : std::string_view();
}

}  // namespace gpuscope::import
