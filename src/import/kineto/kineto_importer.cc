// PyTorch profiler / Kineto Chrome-trace JSON, every version seen in the wild
// (PyTorch 1.8 bare arrays with capitalised categories, integer-us traces, 2024+ traces with
// ns decimals and baseTimeNanoseconds), plain or gzip-compressed, CUDA and ROCm builds.
// Plain files above a few MiB are parsed by several threads in speculative segments
// (see kineto_reader.h); gzip is inflated on a second thread while the first parses.

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "base/json_bytes.h"
#include "base/parallel.h"
#include "format/chrome_trace.h"
#include "format/written_by.h"
#include "import/formats.h"
#include "import/kineto/kineto_reader.h"
#include "model/merge.h"

namespace gpuscope::import::kineto {
namespace {

namespace ct = format::chrome_trace;

// Guesses where an event starts in `bytes`: the index of a '{' after "}," (whitespace allowed).
// A wrong guess only costs parallelism (the reader proves or refutes it).
std::optional<uint64_t> GuessEventStartIn(std::string_view bytes) {
  const char* b = bytes.data();
  const char* e = b + bytes.size();
  for (const char* p = b; p < e; ++p) {
    if (*p != '}') continue;
    const char* q = p + 1;
    while (q < e && base::IsJsonSpace(*q)) ++q;
    if (q >= e || *q != ',') continue;
    ++q;
    while (q < e && base::IsJsonSpace(*q)) ++q;
    if (q < e && *q == '{') return static_cast<uint64_t>(q - b);
  }
  return std::nullopt;
}

// The same near `offset`, in the mapped file or else read from it.
constexpr size_t kGuessBytes = 4 << 20;
std::optional<uint64_t> GuessEventStart(const std::string& path, const base::MappedFile* mapped,
                                        uint64_t offset) {
  if (mapped != nullptr) {
    if (offset >= mapped->size()) return std::nullopt;
    auto at = GuessEventStartIn(std::string_view(
        mapped->data() + offset, std::min<uint64_t>(kGuessBytes, mapped->size() - offset)));
    return at ? std::optional<uint64_t>(offset + *at) : std::nullopt;
  }
  auto src = base::OpenByteSource(path);
  if (!src.ok() || !(*src)->Seek(offset)) return std::nullopt;
  std::vector<char> buf(kGuessBytes);
  long long n = (*src)->Read(buf.data(), buf.size());
  if (n <= 0) return std::nullopt;
  auto at = GuessEventStartIn(std::string_view(buf.data(), static_cast<size_t>(n)));
  return at ? std::optional<uint64_t>(offset + *at) : std::nullopt;
}

// One parallel segment: its own source, trace and side info.
struct Segment {
  std::unique_ptr<base::ByteSource> source;
  model::Trace trace;
  KinetoSideInfo side;
  TopLevelInfo top;
  std::unique_ptr<KinetoBuilder> builder;
  std::unique_ptr<KinetoReader> reader;
  KinetoReader::Outcome outcome = KinetoReader::Outcome::kDone;
  uint64_t end_offset = 0;  // the reader's, kept when a later segment's reader is released
  std::string error;        // likewise

  // A later segment, once read: its window and file go before every segment is held at once
  // for the merge. Its columns' room beyond their rows (PlanColumns) was never written: it
  // holds no memory, and copying the columns to their size would cost time for nothing.
  void Release() {
    end_offset = reader->end_offset();
    error = reader->error();
    reader.reset();
    source.reset();
  }
};

model::Vendor VendorFromName(std::string_view name) {
  auto has = [&](const char* s) { return name.find(s) != std::string_view::npos; };
  if (has("NVIDIA") || has("Tesla") || has("GeForce") || has("Quadro"))
    return model::Vendor::kNvidia;
  if (has("AMD") || has("Instinct") || has("Radeon") || has("gfx")) return model::Vendor::kAmd;
  return model::Vendor::kUnknown;
}

std::string Describe(const TopLevelInfo& top, const KinetoSideInfo& side) {
  std::string v = top.bare_array ? "bare event array" : "JSON object";
  if (top.has_schema_version) v += ", schemaVersion " + top.properties.at("schemaVersion");
  if (side.saw_legacy_categories) v += ", legacy categories (PyTorch 1.8 era)";
  if (side.max_decimals == 0) {
    v += ", integer-us timestamps";
  } else if (side.max_decimals == 3) {
    v += ", us timestamps with 3 decimals (ns)";
  } else {
    v += ", us timestamps with up to " + std::to_string(side.max_decimals) + " decimals";
  }
  if (top.has_base_time) v += ", relative to baseTimeNanoseconds";
  return v;
}

std::string Producer(const TopLevelInfo& top, const KinetoSideInfo& side) {
  auto get = [&](const std::string& k) {
    auto it = top.properties.find(k);
    return it == top.properties.end() ? std::string() : it->second;
  };
  if (!get(std::string(ct::kKeySourceFormat)).empty()) {
    return format::WrittenByLabel(
        get(std::string(ct::kKeyWrittenBy)), get(std::string(ct::kKeySourceProducer)),
        get(std::string(ct::kKeySourceFormat)), get(std::string(ct::kKeySourcePath)));
  }
  std::string p = "PyTorch profiler (Kineto)";
  if (!get("cupti_version").empty()) {
    p += ", CUPTI " + get("cupti_version") + ", CUDA runtime " + get("cuda_runtime_version") +
         ", driver " + get("cuda_driver_version");
  } else if (!get("roctracer_version").empty()) {
    p += ", roctracer " + get("roctracer_version") + ", HIP runtime " + get("hip_runtime_version");
  } else if (side.saw_hip_runtime) {
    p += ", ROCm build";
  } else if (side.saw_cuda_runtime) {
    p += ", CUDA build";
  }
  return p;
}

void Finish(model::Trace& trace, Segment& seg0, const std::string& path) {
  FinishKinetoTrace(trace, seg0.side);
  const TopLevelInfo& top = seg0.top;
  trace.meta.path = path;
  trace.meta.format_version = Describe(top, seg0.side);
  trace.meta.producer = Producer(top, seg0.side);
  trace.meta.base_time_ns = top.has_base_time ? top.base_time_ns : 0;
  // gpuscope's own export rebases times to its first event and says from what.
  auto origin = top.properties.find(std::string(ct::kKeyTimeOriginNs));
  auto source_clock = top.properties.find(std::string(ct::kKeySourceClock));
  trace.meta.clock = top.has_base_time ? "host clock, relative: epoch ns = baseTimeNanoseconds + ts"
                     : origin != top.properties.end()
                         ? "the source's clock (" +
                               (source_clock != top.properties.end() ? source_clock->second
                                                                     : std::string("unknown")) +
                               ") minus " + origin->second + " ns (gpuscopeTimeOriginNs)"
                         : "host clock, as written in the file";
  trace.meta.properties = top.properties;
  trace.meta.rank = top.rank;
  trace.meta.world_size = top.world_size;
  trace.devices = top.devices;
  const bool amd = seg0.side.saw_hip_runtime;
  for (model::Device& d : trace.devices) {
    d.vendor = VendorFromName(d.name);
    if (d.vendor == model::Vendor::kUnknown && amd) d.vendor = model::Vendor::kAmd;
  }
  // GPU work on devices the trace did not describe still gets a device entry.
  std::vector<int32_t> used;
  for (int16_t d : trace.kernels.device) {
    if (d >= 0 && std::find(used.begin(), used.end(), d) == used.end()) used.push_back(d);
  }
  for (int32_t id : used) {
    bool known = std::any_of(trace.devices.begin(), trace.devices.end(),
                             [&](const model::Device& d) { return d.id == id; });
    if (!known) {
      model::Device d;
      d.id = id;
      d.name = "(not described in the trace)";
      d.vendor =
          amd ? model::Vendor::kAmd
              : (seg0.side.saw_cuda_runtime ? model::Vendor::kNvidia : model::Vendor::kUnknown);
      trace.devices.push_back(d);
    }
  }
}

}  // namespace

bool RecognizesKineto(const base::FileSniff& sniff) {
  std::string_view h = sniff.head;
  size_t i = 0;
  if (h.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < h.size() && std::strchr(" \t\r\n", h[i])) ++i;
  if (i >= h.size()) return false;
  if (h[i] == '{') {
    return h.find("\"traceEvents\"") != std::string_view::npos ||
           h.find("\"schemaVersion\"") != std::string_view::npos ||
           h.find("\"deviceProperties\"") != std::string_view::npos;
  }
  if (h[i] == '[') {
    // A bare array of Chrome trace events (PyTorch 1.8).
    return h.find("\"ph\"") != std::string_view::npos && h.find("\"ts\"") != std::string_view::npos;
  }
  return false;
}

namespace {

// Why nothing is left: events dropped for bad times are a broken writer, not a profiler option;
// says which problem and where it first happened.
std::string EmptyReason(const model::Trace& t, uint64_t records) {
  uint64_t untimed = 0;
  std::string first;
  for (model::ProblemKind kind :
       {model::ProblemKind::kKinetoBadTs, model::ProblemKind::kKinetoEventMissingTs}) {
    auto it = t.problems.entries().find(model::ProblemKindName(kind));
    if (it == t.problems.entries().end()) continue;
    untimed += it->second.count;
    if (first.empty()) first = it->first + ": " + it->second.first_example;
  }
  return untimed > 0 ? "the trace holds no usable events: " + std::to_string(untimed) + " of " +
                           std::to_string(records) +
                           " records were dropped for a missing or "
                           "non-numeric 'ts' (first: " +
                           first +
                           "); Kineto writes 'ts' as a number of microseconds: check the "
                           "tool that wrote this file"
                     : "the trace holds no events (" + std::to_string(records) +
                           " records, none of them timed); profile with activities enabled";
}

// A segment's columns are sized from the rate of its first events (KinetoReader::PlanColumns):
// a later segment's for its own bytes, the head's for the whole file, since every later
// segment is appended to it. Not where address space is limited: the room is taken up front.
void PlanColumns(KinetoReader& reader, uint64_t begin, uint64_t stop, uint64_t file_size,
                 bool head) {
  if (base::MappedFile::AddressSpaceLimited() || file_size == 0) return;
  const uint64_t end = std::min(stop, file_size);
  reader.PlanColumns(end, head ? file_size : end - std::min(begin, end));
}

}  // namespace

base::StatusOr<ImportResult> ReadKineto(const std::string& path, const ImportOptions& options) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto opened, base::OpenByteSource(path));
  std::unique_ptr<base::ByteSource> source = std::move(opened);

  const int threads = base::ThreadsFor(options.threads);
  // Two segments per thread, each thread taking the next unread one: the threads rarely run at
  // one speed (a busy sibling core, page faults), and with one segment each the faster thread
  // idled for up to a third of the parse. Four per thread were no faster in 8 alternated runs
  // on the 1 GB trace (1.19 s either way) and held 20% more memory at the peak (236 MB against
  // 197 MB: each segment's columns and pool).
  const int segments = threads > 1 ? 2 * threads : 1;
  // A plain file is parsed in place, mapped (no copy into windows), unless the caller reads
  // through the window (map_files: the Python module; a window size: tests) or the address
  // space is limited (the mapping takes the file's size of it); where it cannot be mapped it is
  // read through the window.
  std::unique_ptr<base::MappedFile> mapped;
  if (source->seekable() && options.map_files && options.json_window_bytes == 0 &&
      !base::MappedFile::AddressSpaceLimited()) {
    if (auto m = base::MappedFile::Open(path, kJsonPadding); m.ok()) mapped = std::move(*m);
  }
  std::vector<uint64_t> starts;  // segment k >= 1 starts at starts[k-1]
  if (source->seekable() && source->size() >= options.parallel_min_bytes && threads > 1) {
    for (int k = 1; k < segments; ++k) {
      auto g =
          GuessEventStart(path, mapped.get(), source->size() * static_cast<uint64_t>(k) / segments);
      if (g && (starts.empty() || *g > starts.back())) starts.push_back(*g);
    }
  }
  if (!source->seekable()) source = base::MakeReadAheadSource(std::move(source));

  std::vector<Segment> segs(starts.size() + 1);
  for (size_t k = 0; k < segs.size(); ++k) {
    Segment& s = segs[k];
    s.builder = std::make_unique<KinetoBuilder>(
        &s.trace, &s.side, options.time_unit_digits >= 0 ? options.time_unit_digits : 3);
    uint64_t begin = k == 0 ? 0 : starts[k - 1];
    uint64_t stop = k < starts.size() ? starts[k] : std::numeric_limits<uint64_t>::max();
    const auto mode = k == 0 ? KinetoReader::Mode::kTopLevel : KinetoReader::Mode::kEventsArray;
    if (mapped != nullptr) {
      s.reader =
          std::make_unique<KinetoReader>(mapped.get(), begin, mode, s.builder.get(), &s.top, stop);
      PlanColumns(*s.reader, begin, stop, source->size(), k == 0);
      continue;
    }
    if (k == 0) {
      s.source = std::move(source);
    } else {
      GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
      s.source = std::move(src);
    }
    s.reader = std::make_unique<KinetoReader>(
        s.source.get(), begin, mode, s.builder.get(), &s.top, stop,
        options.json_window_bytes > 0 ? options.json_window_bytes : KinetoReader::kDefaultWindow);
    if (s.source->seekable()) PlanColumns(*s.reader, begin, stop, s.source->size(), k == 0);
  }
  ImportResult result;
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](std::string what) {
    auto now = std::chrono::steady_clock::now();
    result.laps.emplace_back(std::move(what), std::chrono::duration<double>(now - t0).count());
    t0 = now;
  };
  // Segment 0 reads the top level and is kept whole for the merge; the others release their
  // windows and files as soon as they are read. Out of memory on any thread ends the import on
  // this one (RunJobs rethrows it), where Main turns it into one line.
  std::vector<std::function<void()>> jobs;
  for (size_t k = 0; k < segs.size(); ++k) {
    jobs.push_back([&segs, k] {
      segs[k].outcome = segs[k].reader->Run();
      if (k > 0) segs[k].Release();
    });
  }
  base::RunJobs(jobs, threads);
  lap("parse (" + std::to_string(segs.size()) + " segments, " +
      (mapped != nullptr ? "mapped" : "through a window") + ")");

  // Chain the segments: each is valid only if the one before handed off exactly at its start.
  Segment& head = segs[0];
  std::string error;
  uint64_t records = head.builder->events();
  size_t merged = 0;  // segments after the head whose start the chain proved
  if (head.outcome == KinetoReader::Outcome::kHandoff) {
    std::optional<uint64_t> resume;
    std::vector<model::Trace*> chained;
    for (size_t k = 1; k < segs.size(); ++k) {
      Segment& s = segs[k];
      chained.push_back(&s.trace);
      head.side.Merge(std::move(s.side));
      records += s.builder->events();
      ++merged;
      if (s.outcome == KinetoReader::Outcome::kHandoff) continue;
      if (s.outcome == KinetoReader::Outcome::kArrayEnd) resume = s.end_offset;
      if (s.outcome == KinetoReader::Outcome::kError) error = s.error;
      break;
    }
    model::AppendTraces(head.trace, chained, {.threads = threads});  // each column grows once
    if (resume) {
      head.reader->ResumeAfterEventsArray(*resume);
      head.outcome = head.reader->Run();
      if (head.outcome == KinetoReader::Outcome::kError) error = head.reader->error();
    }
  } else if (head.outcome == KinetoReader::Outcome::kError) {
    error = head.reader->error();
  }
  lap("merge segments (" + std::to_string(merged) + " of " + std::to_string(segs.size() - 1) +
      " later segments chained" + (head.reader->resync_failed() ? ", head resync failed)" : ")"));
  segs.resize(1);

  result.trace = std::move(head.trace);
  Finish(result.trace, head, path);
  lap("finish");
  if (!error.empty()) result.trace.meta.import_error = error;
  result.empty_reason = EmptyReason(result.trace, records);
  return result;
}

}  // namespace gpuscope::import::kineto
