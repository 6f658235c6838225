#pragma once
// The bytes a RankTimeline travels as between processes (a Dask worker to the driver of
// gpuscope.distributed.analyze_job): a header with a version, then every field, integers as
// LEB128 varints (signed ones zigzagged), strings and arrays with their length first. Decoding
// checks every length against the bytes left and every index against what it points into, so
// a damaged or hostile blob ends in one error, never in a crash or an allocation it cannot pay.

#include <string>
#include <string_view>

#include "analysis/job/rank_timeline.h"
#include "base/status.h"

namespace gpuscope::analysis {

std::string EncodeRankTimeline(const RankTimeline& rank);

// `what`: named in the error (a path, "summary 3").
base::StatusOr<RankTimeline> DecodeRankTimeline(std::string_view bytes, const std::string& what);

}  // namespace gpuscope::analysis
