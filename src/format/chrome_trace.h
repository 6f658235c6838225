#pragma once
// What gpuscope adds to Kineto's Chrome-trace dialect, written by output/chrome_trace_writer and
// read back by import/kineto: the categories, args and top-level keys Kineto has no name for.

#include <string_view>

namespace gpuscope::format::chrome_trace {

// Categories: GPU-side ranges other than Kineto's gpu_user_annotation, and the iteration row.
inline constexpr std::string_view kCategoryGpuRange = "gpu_range";
inline constexpr std::string_view kCategoryIteration = "gpuscope_iteration";
// Rows gpuscope derives (convert --annotate: the critical path, each finding's events): skipped
// when read back, as the iteration row is.
inline constexpr std::string_view kCategoryAnnotation = "gpuscope_annotation";

// Args of a memory operation (its direction and memory kinds) and of an API call (its domain).
inline constexpr std::string_view kArgCopyKind = "copy kind";
inline constexpr std::string_view kArgSrcKind = "src kind";
inline constexpr std::string_view kArgDstKind = "dst kind";
inline constexpr std::string_view kArgDomain = "domain";
// The kernel a runtime launch call names (Kineto on ROCm; kept for graph-captured launches).
inline constexpr std::string_view kArgKernel = "kernel";
// On a process/thread/stream name made up for viewers: not read back as a name.
inline constexpr std::string_view kArgGenerated = "generated";

// Top-level keys: where a converted trace came from and the origin its times are relative to.
inline constexpr std::string_view kKeySourcePath = "gpuscopeSourcePath";
inline constexpr std::string_view kKeySourceFormat = "gpuscopeSourceFormat";
inline constexpr std::string_view kKeySourceClock = "gpuscopeSourceClock";
inline constexpr std::string_view kKeySourceProducer = "gpuscopeSourceProducer";
inline constexpr std::string_view kKeyWrittenBy = "gpuscopeWrittenBy";
inline constexpr std::string_view kKeyTimeOriginNs = "gpuscopeTimeOriginNs";

}  // namespace gpuscope::format::chrome_trace
