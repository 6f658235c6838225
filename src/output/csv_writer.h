#pragma once
// CsvWriter: RFC 4180 rows (fields quoted only when they need it).

#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::output {

class CsvWriter {
 public:
  void Row(const std::vector<std::string>& fields);
  const std::string& str() const { return out_; }
  // Appends one field, quoted only when it holds a comma, quote or line break.
  static void AppendField(std::string& out, std::string_view field);

 private:
  std::string out_;
};

}  // namespace gpuscope::output
