// The raw rpl_data_* intermediate files hip_api_trace.txt / hcc_ops_trace.txt.

#include <filesystem>
#include <functional>
#include <optional>

#include "base/numbers.h"
#include "import/common/rocm_row_builder.h"
#include "import/formats.h"

namespace gpuscope::import::rocprof {

using model::Trace;
using namespace rocm;  // the shared ROCm row builder and name classifiers

namespace {

// A line of either file: "<begin>:<end> <a>:<b> <rest>".
struct RawLine {
  int64_t begin = 0, end = 0;
  std::string_view a, b, rest;
};

// The parts of a line; nullopt if it does not have that shape.
std::optional<RawLine> SplitRawLine(std::string_view line) {
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return std::nullopt;
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return std::nullopt;
  std::string_view times = line.substr(0, sp1), ids = line.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t c1 = times.find(':'), c2 = ids.find(':');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) return std::nullopt;
  auto begin = base::ParseInt64(times.substr(0, c1)), end = base::ParseInt64(times.substr(c1 + 1));
  if (!begin || !end) return std::nullopt;
  return RawLine{*begin, *end, ids.substr(0, c2), ids.substr(c2 + 1), line.substr(sp2 + 1)};
}

// The rest of an ops line, "<OpName>:<corr>:<pid>" (the name may hold colons); nullopt without
// the two last colons.
struct OpsTail {
  std::string_view name, corr, pid;
};
std::optional<OpsTail> SplitOpsTail(std::string_view rest) {
  size_t c2 = rest.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return std::nullopt;
  size_t c1 = rest.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return std::nullopt;
  return OpsTail{rest.substr(0, c1), rest.substr(c1 + 1, c2 - c1 - 1), rest.substr(c2 + 1)};
}

std::string RawSibling(const std::string& path, std::string_view want) {
  namespace fs = std::filesystem;
  std::string name = fs::path(path).filename().string();
  for (std::string_view have :
       {std::string_view("hip_api_trace.txt"), std::string_view("hcc_ops_trace.txt")}) {
    if (name.size() >= have.size() &&
        name.compare(name.size() - have.size(), have.size(), have) == 0) {
      fs::path sib = fs::path(path).parent_path() /
                     (name.substr(0, name.size() - have.size()) + std::string(want));
      std::error_code ec;
      return fs::is_regular_file(sib, ec) ? sib.string() : std::string();
    }
  }
  return {};
}

base::Status ReadLines(const std::string& path, Trace& trace,
                       const std::function<bool(std::string_view)>& line) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  std::string buf, chunk(1 << 20, '\0');
  uint64_t n = 0;
  auto take = [&](std::string_view l) {  // empty lines are counted, not read
    ++n;
    if (!l.empty() && !line(l))
      trace.problems.Add(model::ProblemKind::kRocprofRawBadLine,
                         path + " line " + std::to_string(n));
  };
  auto flush = [&](bool all) {
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
      take(std::string_view(buf.data() + start, nl - start));
    buf.erase(0, start);
    if (all && !buf.empty()) take(buf);
    if (all) buf.clear();
  };
  for (long long r; (r = src->Read(chunk.data(), chunk.size())) > 0;) {
    buf.append(chunk.data(), static_cast<size_t>(r));
    flush(false);
  }
  flush(true);
  return base::Status::Ok();
}

bool LooksLikeHipApiLine(std::string_view l) {
  auto r = SplitRawLine(l);
  return r && r->rest.find('(') != std::string_view::npos &&
         r->rest.rfind(" :") != std::string_view::npos;
}

bool LooksLikeOpsLine(std::string_view l) {
  auto r = SplitRawLine(l);
  auto tail = r ? SplitOpsTail(r->rest) : std::nullopt;
  return tail && base::ParseInt64(tail->corr) && base::ParseInt64(tail->pid);
}

}  // namespace

bool RecognizesRocprofRaw(const base::FileSniff& sniff) {
  std::string_view h(sniff.head);
  std::string_view first = h.substr(0, h.find('\n'));
  return LooksLikeHipApiLine(first) || LooksLikeOpsLine(first);
}

base::StatusOr<ImportResult> ReadRocprofRaw(const std::string& path, const ImportOptions&) {
  ImportResult result;
  Trace& trace = result.trace;
  InitLegacyMeta(trace, path, "rpl_data intermediate text");
  RocmRowBuilder b(&trace);
  std::string name = std::filesystem::path(path).filename().string();
  bool is_ops = name.find("hcc_ops_trace") != std::string::npos;
  std::unordered_map<int64_t, std::string> kernel_names;  // correlation -> full kernel name
  std::string api_file = is_ops ? RawSibling(path, "hip_api_trace.txt") : path;
  std::string ops_file = is_ops ? path : RawSibling(path, "hcc_ops_trace.txt");
  if (!api_file.empty()) {
    // <begin>:<end> <pid>:<tid> <api>(<args>)[ kernel=<name>] :<corr>
    GPUSCOPE_RETURN_IF_ERROR(ReadLines(api_file, trace, [&](std::string_view l) {
      auto r = SplitRawLine(l);
      if (!r) return false;
      std::string_view rest = r->rest;
      size_t colon = rest.rfind(" :");
      size_t paren = rest.find('(');
      if (colon == std::string_view::npos || paren == std::string_view::npos) return false;
      auto corr = base::ParseInt64(rest.substr(colon + 2));
      b.Api(r->begin, r->end, r->a, r->b, rest.substr(0, paren),
            corr ? static_cast<uint64_t>(*corr) : model::kNoCorrelation,
            rest.substr(paren, colon - paren), false);
      // Launches name their kernel in full (" kernel=<name>"); the ops file has only the base name.
      size_t k = rest.find(") kernel=");
      if (corr && k != std::string_view::npos && k < colon)
        kernel_names[*corr] = std::string(rest.substr(k + 9, colon - k - 9));
      return true;
    }));
  } else {
    trace.meta.not_collected.push_back("HIP API calls (no hip_api_trace.txt beside the ops file)");
  }
  if (!ops_file.empty()) {
    // <begin>:<end> <dev>:<queue> <OpName>:<corr>:<pid>
    GPUSCOPE_RETURN_IF_ERROR(ReadLines(ops_file, trace, [&](std::string_view l) {
      auto r = SplitRawLine(l);
      auto tail = r ? SplitOpsTail(r->rest) : std::nullopt;
      if (!tail) return false;
      auto corr = base::ParseInt64(tail->corr);
      auto full = corr ? kernel_names.find(*corr) : kernel_names.end();
      std::string_view op_name =
          full != kernel_names.end() ? std::string_view(full->second) : tail->name;
      b.Op(r->begin, r->end, Num(r->a), r->b, op_name,
           corr ? static_cast<uint64_t>(*corr) : model::kNoCorrelation);
      return true;
    }));
  } else {
    trace.meta.not_collected.push_back("GPU ops (no hcc_ops_trace.txt beside the API file)");
  }
  return FinishLegacy(result, b, "no lines in the rocprof intermediate files");
}

}  // namespace gpuscope::import::rocprof
