#include "output/text_table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "base/text.h"

namespace gpuscope::output {

void TextTable::AddColumn(std::string header, Align align, bool flexible) {
  columns_.push_back(Column{std::move(header), align, flexible});
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(size_t max_width, bool fit) const {
  const size_t n = columns_.size();
  std::vector<size_t> width(n);
  for (size_t c = 0; c < n; ++c) {
    width[c] = base::DisplayWidth(columns_[c].header);
    for (const auto& r : rows_) width[c] = std::max(width[c], base::DisplayWidth(r[c]));
  }
  size_t total = 0;
  for (size_t c = 0; c < n; ++c) total += width[c] + (c ? 2 : 0);
  size_t flex = n;
  for (size_t c = 0; c < n; ++c) {
    if (columns_[c].flexible) flex = c;
  }
  if (fit && flex < n && total > max_width) {
    size_t others = total - width[flex];
    // The name takes the width the other columns leave, at least 16 columns.
    size_t room = max_width > others ? max_width - others : 0;
    width[flex] = std::min(width[flex], std::max<size_t>(room, 16));
    width[flex] = std::max(width[flex], base::DisplayWidth(columns_[flex].header));
  }
  auto pad = [](std::string s, size_t w, Align a, bool last) {
    size_t dw = base::DisplayWidth(s);
    if (dw >= w) return s;
    if (a == Align::kRight) return std::string(w - dw, ' ') + s;
    return last ? s : s + std::string(w - dw, ' ');
  };
  // The flexible column's cells shortened together, so that different names stay different.
  std::vector<std::string> flex_cells;
  if (fit && flex < n) {
    for (const auto& r : rows_) flex_cells.push_back(r[flex]);
    flex_cells = base::ShortenNamesDistinct(flex_cells, width[flex]);
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells, size_t row) {
    std::string l;
    for (size_t c = 0; c < n; ++c) {
      if (c) l += "  ";
      // (the header fits its column: the width is at least the header's)
      std::string cell = c == flex && fit && row < flex_cells.size() ? flex_cells[row] : cells[c];
      l += pad(std::move(cell), width[c], columns_[c].align, c + 1 == n);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l;
    out += '\n';
  };
  std::vector<std::string> header(n), rule(n);
  for (size_t c = 0; c < n; ++c) {
    header[c] = columns_[c].header;
    rule[c] = std::string(width[c], '-');
  }
  line(header, SIZE_MAX);
  line(rule, SIZE_MAX);
  for (size_t r = 0; r < rows_.size(); ++r) line(rows_[r], r);
  return out;
}

size_t TerminalWidth() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  if (const char* cols = std::getenv("COLUMNS")) {
    int v = std::atoi(cols);
    if (v > 20) return static_cast<size_t>(v);
  }
  return 100;
}

}  // namespace gpuscope::output
