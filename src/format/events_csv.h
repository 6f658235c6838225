#pragma once
// The events.csv contract: one row per event, written by output/events_csv_writer and read back
// by import/gpuscope_csv by column name (so extra or reordered columns still read). Changing a
// name here changes both sides.

#include <array>
#include <string_view>

namespace gpuscope::format::events_csv {

// Column positions in the written file.
enum Column {
  kKind,
  kName,
  kStart,
  kDur,
  kPid,
  kTid,
  kDevice,
  kStream,
  kCorrelation,
  kExternalId,
  kBytes,
  kCopyKind,
  kSrcKind,
  kDstKind,
  kGrid,
  kBlock,
  kDomain,
  kPythonId,
  kPythonParentId,
  kValue,
  kAllocated,
  kReserved,
  kAddr,
  kColumnCount
};

inline constexpr std::array<std::string_view, kColumnCount> kColumnNames = {"kind",
                                                                            "name",
                                                                            "start_ns",
                                                                            "dur_ns",
                                                                            "pid",
                                                                            "tid",
                                                                            "device",
                                                                            "stream",
                                                                            "correlation",
                                                                            "external_id",
                                                                            "bytes",
                                                                            "copy_kind",
                                                                            "src_kind",
                                                                            "dst_kind",
                                                                            "grid",
                                                                            "block",
                                                                            "domain",
                                                                            "python_id",
                                                                            "python_parent_id",
                                                                            "value",
                                                                            "allocated_bytes",
                                                                            "reserved_bytes",
                                                                            "addr"};

// Without these a file is not an events.csv (the importer refuses it in one line).
inline constexpr std::array<Column, 6> kRequired = {kKind, kName, kStart, kDur, kPid, kTid};

// The file's first bytes, which the registry recognises.
inline constexpr std::string_view kSignature = "kind,name,start_ns,dur_ns,";

}  // namespace gpuscope::format::events_csv
