#pragma once
// CsvReader: streams the records of a CSV file (RFC 4180: quoted fields may hold commas,
// doubled quotes and newlines), plain or gzip, one record at a time. Fields are views into the
// reader's buffer, valid until the next call. Used by the rocprofv3 CSV, legacy rocprof and
// events.csv importers, which always map columns by header name, never by position.
//
// Damage is found here, once for every CSV format, and counted in the trace's problems with its
// line: a quote never closed (the record is cut at the end of its line, so one stray quote does
// not swallow the rest of the file), a row with more or fewer fields than the header (kept; the
// importer reads fields by name), a NUL byte (the row is dropped). A file that ends inside a row
// (no newline and fewer fields than the header, or inside quotes) sets error(), like a truncated
// JSON or gzip file: the rows before it are kept. A UTF-8 BOM and CRLF line ends are read as
// written by spreadsheet tools and Windows, without a word.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/byte_source.h"
#include "base/status.h"
#include "model/problems.h"

namespace gpuscope::import {

class CsvReader {
 public:
  // `problems` (may be null) receives the damage found, named with `path`.
  static base::StatusOr<CsvReader> Open(const std::string& path,
                                        model::ProblemLog* problems = nullptr);
  // Reads the next record into `fields`; false at the end of the file or on a read error.
  // Empty lines are skipped (rocprofv2 writes one after each header).
  bool Next(std::vector<std::string_view>* fields);
  const std::string& error() const { return error_; }
  uint64_t line() const { return line_; }  // 1-based line of the last record returned

 private:
  CsvReader(std::unique_ptr<base::ByteSource> src, model::ProblemLog* problems, std::string path)
      : src_(std::move(src)), problems_(problems), path_(std::move(path)) {}
  bool Fill();  // appends more bytes to buf_; false at the end
  // Finds the end of the record starting at pos_ (a newline outside quotes); sets *cut when an
  // unclosed quote made it end at its first line instead.
  size_t RecordEnd(uint64_t* newlines, bool* cut);
  void Split(std::string_view rec, std::vector<std::string_view>* fields);
  void Problem(model::ProblemKind kind, uint64_t line, const std::string& what);

  std::unique_ptr<base::ByteSource> src_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  std::string error_;
  uint64_t line_ = 0, next_line_ = 1;
  std::deque<std::string> unquoted_;  // fields that needed "" -> " decoding (stable addresses)
  model::ProblemLog* problems_ = nullptr;
  std::string path_;
  size_t header_fields_ = 0;  // fields of the first record (0 until it is read)
  bool started_ = false;      // the BOM check is done
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

// A CSV file opened past its header row: the reader at the first data row, the header's names as
// written and their positions.
struct CsvFile {
  CsvReader reader;
  std::vector<std::string> names;
  CsvHeader header;
};
// An empty file (no header row) is the error "PATH: empty " + `what` ("events.csv", "CSV").
base::StatusOr<CsvFile> OpenCsv(const std::string& path, std::string_view what,
                                model::ProblemLog* problems);

// The field at `col` or "" when the column is absent or the row is short.
inline std::string_view Field(const std::vector<std::string_view>& row, int col) {
  return col >= 0 && static_cast<size_t>(col) < row.size() ? row[col] : std::string_view();
}

}  // namespace gpuscope::import
