#pragma once
// "schema_version": the first key of every JSON document gpuscope prints (each command's
// --format json, the help topics, the Python package's dicts, the MCP server's results), so that
// a program reading them knows which shape it holds. docs/schema/*.schema.json describe the
// shapes and carry the same number (a test validates every command's output on every sample
// against them). Bump it when a document's shape changes so that a reader could break (a key
// removed, renamed or of another type) and say what changed in docs/schema/README.md; a new key
// does not bump it (the schemas allow keys they do not name).

#include <string>
#include <string_view>

#include "output/json_writer.h"
#include "render/result_table.h"

namespace gpuscope::render {

inline constexpr int kJsonSchemaVersion = 1;

// Opens a document's top-level object with its "schema_version".
inline output::JsonWriter& BeginDocument(output::JsonWriter& w) {
  return w.BeginObject().Key("schema_version").Int(kJsonSchemaVersion);
}

// A help topic's rows as a document: {"schema_version", "topic", KEY: [{column: value}, ...]}.
inline std::string HelpTopicJson(std::string_view topic, std::string_view key,
                                 const ResultTable& rows) {
  output::JsonWriter w;
  BeginDocument(w).Key("topic").String(topic);
  rows.Json(w.Key(key));
  w.EndObject();
  return w.str();
}

}  // namespace gpuscope::render
