#pragma once
// The one rule by which the text writers (JSON, CSV) stream to a file as they write: what they
// hold goes out once it reaches 1 MiB, so a document of millions of rows is never held whole
// (issue 33).

#include <cstdio>
#include <string>

namespace gpuscope::output {

inline constexpr size_t kStreamFlushBytes = size_t{1} << 20;

// Writes `held` to `sink` and empties it once it holds kStreamFlushBytes (no sink: keeps it).
inline void FlushWhenFull(std::string& held, std::FILE* sink) {
  if (!sink || held.size() < kStreamFlushBytes) return;
  std::fwrite(held.data(), 1, held.size(), sink);
  held.clear();
}

}  // namespace gpuscope::output
