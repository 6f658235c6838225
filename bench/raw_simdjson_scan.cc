// The parse floor: a single-threaded simdjson On-Demand scan of a Kineto trace that only sums
// kernel durations. No model, no strings kept - what any full importer must beat or approach.
// usage: raw_simdjson_scan [--mmap] TRACE.json
//   --mmap: parse the file in place, mapped (how the project's ingest bar is measured, issue 54:
//   a reader that maps the file never pays the ~0.5 s/GB copy into a buffer); without it the
//   file is first read into a padded buffer.

#include <fcntl.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {

// The file mapped read-only over the start of a reservation one padding larger: the bytes past
// the file's end read as zeros, which is the padding simdjson needs to read past the last token.
bool MapPadded(const char* path, simdjson::padded_string_view* out) {
  const int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return false;
  const size_t size = static_cast<size_t>(st.st_size);
  void* area = mmap(nullptr, size + simdjson::SIMDJSON_PADDING, PROT_READ,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return false;
  if (size > 0 && mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
    return false;
  close(fd);
  *out = simdjson::padded_string_view(static_cast<const char*>(area), size,
                                      size + simdjson::SIMDJSON_PADDING);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool mapped = argc == 3 && std::strcmp(argv[1], "--mmap") == 0;
  if (argc != 2 && !mapped) {
    std::fprintf(stderr, "usage: raw_simdjson_scan [--mmap] TRACE.json\n");
    return 2;
  }
  const char* path = argv[argc - 1];
  simdjson::padded_string loaded;
  simdjson::padded_string_view json;
  if (mapped ? !MapPadded(path, &json)
             : static_cast<bool>(simdjson::padded_string::load(path).get(loaded))) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 2;
  }
  if (!mapped) json = loaded;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc = parser.iterate(json);
  double total_us = 0;
  long kernels = 0;
  for (auto ev : doc["traceEvents"].get_array()) {
    auto obj = ev.get_object();
    std::string_view cat;
    double dur = 0;
    bool is_kernel = false;
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      if (key == "cat") {
        if (!field.value().get_string().get(cat)) is_kernel = cat == "kernel";
      } else if (key == "dur") {
        if (field.value().get_double().get(dur)) dur = 0;
      }
    }
    if (is_kernel) {
      total_us += dur;
      ++kernels;
    }
  }
  std::printf("kernels %ld total %.3f us\n", kernels, total_us);
  return 0;
}
