#include "output/csv_writer.h"

namespace gpuscope::output {

void CsvWriter::Row(const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out_ += ',';
    const std::string& f = fields[i];
    if (f.find_first_of(",\"\n\r") == std::string::npos) {
      out_ += f;
      continue;
    }
    out_ += '"';
    for (char c : f) {
      if (c == '"') out_ += '"';
      out_ += c;
    }
    out_ += '"';
  }
  out_ += '\n';
}

}  // namespace gpuscope::output
