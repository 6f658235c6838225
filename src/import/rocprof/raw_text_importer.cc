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

// "<begin>:<end> <a>:<b> <rest>" -> the parts; false if the line does not have that shape.
bool SplitRawLine(std::string_view line, int64_t* begin, int64_t* end, std::string_view* a,
                  std::string_view* b, std::string_view* rest) {
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return false;
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  std::string_view times = line.substr(0, sp1), ids = line.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t c1 = times.find(':'), c2 = ids.find(':');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) return false;
  auto bv = base::ParseInt64(times.substr(0, c1)), ev = base::ParseInt64(times.substr(c1 + 1));
  if (!bv || !ev) return false;
  *begin = *bv, *end = *ev;
  *a = ids.substr(0, c2), *b = ids.substr(c2 + 1);
  *rest = line.substr(sp2 + 1);
  return true;
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
  auto flush = [&](bool all) {
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view l(buf.data() + start, nl - start);
      ++n;
      if (!l.empty() && !line(l))
        trace.problems.Add(model::ProblemKind::kRocprofRawBadLine,
                           path + " line " + std::to_string(n));
    }
    buf.erase(0, start);
    if (all && !buf.empty()) {
      ++n;
      if (!line(buf))
        trace.problems.Add(model::ProblemKind::kRocprofRawBadLine,
                           path + " line " + std::to_string(n));
      buf.clear();
    }
  };
  for (long long r; (r = src->Read(chunk.data(), chunk.size())) > 0;) {
    buf.append(chunk.data(), static_cast<size_t>(r));
    flush(false);
  }
  flush(true);
  return base::Status::Ok();
}

bool LooksLikeHipApiLine(std::string_view l) {
  int64_t b = 0, e = 0;
  std::string_view x, y, rest;
  return SplitRawLine(l, &b, &e, &x, &y, &rest) && rest.find('(') != std::string_view::npos &&
         rest.rfind(" :") != std::string_view::npos;
}

bool LooksLikeOpsLine(std::string_view l) {
  int64_t b = 0, e = 0;
  std::string_view x, y, rest;
  if (!SplitRawLine(l, &b, &e, &x, &y, &rest)) return false;
  size_t c2 = rest.rfind(':');
  size_t c1 =
      c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : rest.rfind(':', c2 - 1);
  return c1 != std::string_view::npos && base::ParseInt64(rest.substr(c1 + 1, c2 - c1 - 1)) &&
         base::ParseInt64(rest.substr(c2 + 1));
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
      int64_t begin = 0, end = 0;
      std::string_view pid, tid, rest;
      if (!SplitRawLine(l, &begin, &end, &pid, &tid, &rest)) return false;
      size_t colon = rest.rfind(" :");
      size_t paren = rest.find('(');
      if (colon == std::string_view::npos || paren == std::string_view::npos) return false;
      auto corr = base::ParseInt64(rest.substr(colon + 2));
      b.Api(begin, end, pid, tid, rest.substr(0, paren),
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
      int64_t begin = 0, end = 0;
      std::string_view dev, queue, rest;
      if (!SplitRawLine(l, &begin, &end, &dev, &queue, &rest)) return false;
      size_t c2 = rest.rfind(':');
      size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos
                                                          : rest.rfind(':', c2 - 1);
      if (c1 == std::string_view::npos) return false;
      auto corr = base::ParseInt64(rest.substr(c1 + 1, c2 - c1 - 1));
      auto full = corr ? kernel_names.find(*corr) : kernel_names.end();
      std::string_view op_name =
          full != kernel_names.end() ? std::string_view(full->second) : rest.substr(0, c1);
      b.Op(begin, end, Num(dev), queue, op_name,
           corr ? static_cast<uint64_t>(*corr) : model::kNoCorrelation);
      return true;
    }));
  } else {
    trace.meta.not_collected.push_back("GPU ops (no hcc_ops_trace.txt beside the API file)");
  }
  return FinishLegacy(result, b, "no lines in the rocprof intermediate files");
}

}  // namespace gpuscope::import::rocprof
