#include "import/common/rocm_row_builder.h"

#include "base/numbers.h"

namespace gpuscope::import::rocm {

constexpr const char* kClock = "HSA system clock ns (CLOCK_BOOTTIME)";

void InitLegacyMeta(Trace& t, const std::string& path, const char* version) {
  t.meta.path = path;
  t.meta.format_version = version;
  t.meta.producer = "rocprof (legacy v1)";
  t.meta.clock = kClock;
}

// "void k<float>(float*) [clone .kd]" / "k.kd" -> the kernel name as HIP names it. The KERN
// table of results.db keeps the CSV's quotes around names: they go too.
std::string_view CleanKernelName(std::string_view n) {
  if (n.size() >= 2 && n.front() == '"' && n.back() == '"') n = n.substr(1, n.size() - 2);
  for (std::string_view suffix : {std::string_view(" [clone .kd]"), std::string_view(".kd")}) {
    if (n.size() > suffix.size() && n.substr(n.size() - suffix.size()) == suffix) {
      n.remove_suffix(suffix.size());
      break;
    }
  }
  return n;
}

// The size a copy API was asked to move, from its argument text: "sizeBytes(8388608)" (results.db,
// results.json) or "sizeBytes=8388608" (hip_api_trace.txt). -1 when absent.
int64_t SizeBytesArg(std::string_view args) {
  auto p = args.find("sizeBytes");
  if (p == std::string_view::npos) return -1;
  p += 9;
  if (p < args.size() && (args[p] == '(' || args[p] == '=')) ++p;
  size_t e = p;
  while (e < args.size() && args[e] >= '0' && args[e] <= '9') ++e;
  auto v = base::ParseInt64(args.substr(p, e - p));
  return v ? *v : -1;
}

// Ends an import whose rows `b` built into `result.trace`; `empty_reason` is said when none.
ImportResult FinishLegacy(ImportResult& result, RocmRowBuilder& b, std::string empty_reason) {
  b.Finish();
  result.empty_reason = std::move(empty_reason);
  return std::move(result);
}

int64_t Num(std::string_view s, int64_t fallback) {
  auto v = base::ParseInt64(s);
  return v ? *v : fallback;
}

}  // namespace gpuscope::import::rocm
