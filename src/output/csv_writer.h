#pragma once
// CsvWriter: RFC 4180 rows (fields quoted only when they need it).

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::output {

class CsvWriter {
 public:
  void Row(const std::vector<std::string>& fields);
  // The text not yet streamed: the whole table unless StreamTo was called.
  const std::string& str() const { return out_; }
  // Rows go to `sink` as they are made, 1 MiB at a time (a million-row table is never held
  // whole, issue 33); what is left is str().
  void StreamTo(std::FILE* sink) { sink_ = sink; }
  // Appends one field, quoted only when it holds a comma, quote or line break.
  static void AppendField(std::string& out, std::string_view field);

 private:
  std::string out_;
  std::FILE* sink_ = nullptr;
};

}  // namespace gpuscope::output
