#pragma once
// `gpuscope help tables`: the event tables the Python package exports as Arrow (Trace.kernels(),
// ...) and gpuscope.query / the MCP `query` tool serve to SQL, each column with its type and
// unit. The one list of them: the Python tests check the exported tables' columns against it.

#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::render {

struct TableColumnDoc {
  std::string_view name, type, unit, meaning;
};

struct TableDoc {
  std::string_view name, rows;
  std::vector<TableColumnDoc> columns;
};

// Every table, in the order `help tables` lists them.
const std::vector<TableDoc>& QueryTables();

// format: table, markdown, json or csv.
std::string TablesHelp(std::string_view format);

}  // namespace gpuscope::render
