#pragma once
// TextTable: an aligned terminal table. Columns fit their widest cell; when the table is wider
// than the terminal, the one flexible column (a name) is shortened to fit by base/short_name.h's
// rule, names that would read alike keeping where they differ - unless the caller asks for whole
// names.

#include <string>
#include <vector>

namespace gpuscope::output {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  void AddColumn(std::string header, Align align, bool flexible = false);
  void AddRow(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }

  // Renders with columns separated by two spaces, within `max_width` display columns when
  // `fit` is set (the flexible column never shrinks below `name_floor`, nor below its header).
  std::string Render(size_t max_width, bool fit, size_t name_floor = 16) const;

 private:
  struct Column {
    std::string header;
    Align align;
    bool flexible;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Terminal width: the tty's, else $COLUMNS, else 100.
size_t TerminalWidth();

}  // namespace gpuscope::output
