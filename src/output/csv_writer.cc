#include "output/csv_writer.h"

#include "output/stream_flush.h"

namespace gpuscope::output {

// A NUL byte (from a damaged name) is written as U+FFFD: readers, gpuscope's included, take a
// NUL in a CSV row for damage and drop the row.
void CsvWriter::AppendField(std::string& out, std::string_view f) {
  bool nul = f.find('\0') != std::string_view::npos;
  if (!nul && f.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += f;
    return;
  }
  out += '"';
  for (char c : f) {
    if (c == '"') out += '"';
    if (c == '\0') {
      out += "\xef\xbf\xbd";
      continue;
    }
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
  FlushWhenFull(out_, sink_);
}

}  // namespace gpuscope::output
