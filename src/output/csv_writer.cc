#include "output/csv_writer.h"

namespace gpuscope::output {

void CsvWriter::AppendField(std::string& out, std::string_view f) {
  if (f.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += f;
    return;
  }
  out += '"';
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void CsvWriter::Row(const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out_ += ',';
    AppendField(out_, fields[i]);
  }
  out_ += '\n';
}

}  // namespace gpuscope::output
