#pragma once
// "source": {"path", "format"[, "format_version"]}: what a command's JSON says it read, alike in
// every command.

#include <string_view>

#include "model/trace.h"
#include "output/json_writer.h"

namespace gpuscope::render {

inline void SourceJson(output::JsonWriter& w, std::string_view path,
                       const model::TraceMetadata& meta, bool with_version = false) {
  w.Key("source").BeginObject().Key("path").String(path).Key("format").String(meta.format);
  if (with_version) w.Key("format_version").String(meta.format_version);
  w.EndObject();
}

}  // namespace gpuscope::render
