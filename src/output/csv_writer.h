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

 private:
  std::string out_;
};

}  // namespace gpuscope::output
