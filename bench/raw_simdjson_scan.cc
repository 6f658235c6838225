// The parse floor: a single-threaded simdjson On-Demand scan of a Kineto trace that only sums
// kernel durations. No model, no strings kept - what any full importer must beat or approach.
// usage: raw_simdjson_scan TRACE.json

#include <simdjson.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: raw_simdjson_scan TRACE.json\n");
    return 2;
  }
  simdjson::padded_string json;
  if (simdjson::padded_string::load(argv[1]).get(json)) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
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
