#include "output/text_table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "base/short_name.h"
#include "base/text.h"

namespace gpuscope::output {

void TextTable::AddColumn(std::string header, Align align, bool flexible) {
  columns_.push_back(Column{std::move(header), align, flexible});
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(size_t max_width, bool fit, size_t name_floor) const {
  const size_t n = columns_.size();
  std::vector<size_t> width(n);
  for (size_t c = 0; c < n; ++c) {
    width[c] = base::DisplayWidth(columns_[c].header);
    for (const auto& r : rows_) width[c] = std::max(width[c], base::DisplayWidth(r[c]));
  }
  size_t total = 0;
  for (size_t c = 0; c < n; ++c) total += width[c] + (c ? 2 : 0);
  // The flexible columns give way, the widest first, each down to at least `name_floor` columns.
  std::vector<bool> shorten(n, false);
  while (fit && total > max_width) {
    size_t flex = n;
    for (size_t c = 0; c < n; ++c) {
      size_t floor = std::max(name_floor, base::DisplayWidth(columns_[c].header));
      if (columns_[c].flexible && width[c] > floor && (flex == n || width[c] > width[flex]))
        flex = c;
    }
    if (flex == n) break;
    size_t floor = std::max(name_floor, base::DisplayWidth(columns_[flex].header));
    size_t cut = std::min(total - max_width, width[flex] - floor);
    width[flex] -= cut, total -= cut;
    shorten[flex] = true;
  }
  auto pad = [](std::string s, size_t w, Align a, bool last) {
    size_t dw = base::DisplayWidth(s);
    if (dw >= w) return s;
    if (a == Align::kRight) return std::string(w - dw, ' ') + s;
    return last ? s : s + std::string(w - dw, ' ');
  };
  // A shortened column's cells shortened together, so that different names stay different.
  std::vector<std::vector<std::string>> short_cells(n);
  for (size_t c = 0; c < n; ++c) {
    if (!shorten[c]) continue;
    for (const auto& r : rows_) short_cells[c].push_back(r[c]);
    short_cells[c] = base::ShortenNamesDistinct(short_cells[c], width[c]);
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells, size_t row) {
    std::string l;
    for (size_t c = 0; c < n; ++c) {
      if (c) l += "  ";
      // (the header fits its column: the width is at least the header's)
      std::string cell = row < short_cells[c].size() ? short_cells[c][row] : cells[c];
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
