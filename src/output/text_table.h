#pragma once
// TextTable: an aligned terminal table. Columns fit their widest cell; when the table is wider
// than the terminal, the one flexible column (a name) is shortened to fit - template arguments
// folded first, then the middle cut, names that would read alike keeping where they differ -
// unless the caller asks for whole names.

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
  // `fit` is set (the flexible column never shrinks below 16).
  std::string Render(size_t max_width, bool fit) const;

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
