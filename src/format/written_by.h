#pragma once
// What `info` says wrote a trace that gpuscope exported (`convert`, or `run` converting its
// tracer's output): the command, then the tool that recorded the events. One wording for every
// reader of gpuscope's exports (.rpd, rocpd, Chrome JSON); each format keeps the parts under its
// own tags (rpd_ext.h, chrome_trace.h, the rocpd writer's metadata).

#include <string>
#include <string_view>

namespace gpuscope::format {

// The command exporting a trace, when another than `gpuscope convert` ("gpuscope run"): set in
// TraceMetadata::properties under this key before the writer runs.
inline constexpr std::string_view kExportedByProperty = "gpuscope.exported_by";
inline constexpr std::string_view kDefaultExporter = "gpuscope convert";

// The command writing `properties`' trace out.
template <typename Properties>
std::string_view ExportedBy(const Properties& properties) {
  auto it = properties.find(std::string(kExportedByProperty));
  return it == properties.end() || it->second.empty() ? kDefaultExporter
                                                      : std::string_view(it->second);
}

// "gpuscope run, recorded by PyTorch profiler (Kineto), CUDA build" (`run` converts a file of
// its own making, so no path); "gpuscope convert, from rocprofv3 (rocprofiler-sdk) (a.db)".
// Exports older than the recorder's tag name the source's format instead.
inline std::string WrittenByLabel(std::string_view command, std::string_view source_producer,
                                  std::string_view source_format, std::string_view source_path) {
  std::string label(command.empty() ? kDefaultExporter : command);
  const bool run = label.rfind("gpuscope run", 0) == 0;
  label += run ? ", recorded by " : ", from ";
  label += source_producer.empty() ? source_format : source_producer;
  if (!run) label.append(" (").append(source_path).append(")");
  return label;
}

}  // namespace gpuscope::format
