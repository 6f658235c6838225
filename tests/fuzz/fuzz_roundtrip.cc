// Fuzz target: the writers' round trip. Whatever the Kineto importer accepts is written as
// Chrome trace JSON, events.csv, .rpd, an nsys export and rocpd, and read back; each copy must
// hold the same number of kernels, copies and API calls (less what the format leaves out), and
// pass the same invariants.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "import/formats.h"
#include "import/registry.h"
#include "model/plausibility.h"
#include "render/export.h"

using namespace gpuscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::WriteInput(data, size, "trace.json");
  auto read = import::kineto::ReadKineto(path, fuzz::FuzzOptions());
  if (!read.ok()) return 0;
  auto trace = import::FinishImport(fuzz::ImporterNamed("kineto"), path, std::move(*read),
                                    fuzz::FuzzOptions());
  if (!trace.ok()) return 0;
  fuzz::CheckTrace(*trace);
  // What each format holds: rocpd has no fills and no OS calls (convert counts them as left
  // out); the other formats hold every kernel, copy, fill and call.
  size_t fills = 0, os_calls = 0;
  for (auto k : trace->memops.kind) fills += k == model::MemopKind::kMemset;
  for (auto d : trace->api.domain) os_calls += d == model::ApiDomain::kOs;
  for (const char* out :
       {"back.json", "back.rpd", "back_events.csv", "back.sqlite", "back.db"}) {
    const bool rocpd = std::string_view(out).ends_with(".db");
    const size_t want_memops = trace->memops.size() - (rocpd ? fills : 0);
    const size_t want_api = trace->api.size() - (rocpd ? os_calls : 0);
    std::string out_path = fuzz::WriteInput(nullptr, 0, out);
    auto format = render::ExportFormat(out_path, "");
    if (!format.ok()) std::abort();
    auto written = render::ExportTrace(*trace, out_path, *format);
    if (!written.ok()) {
      std::fprintf(stderr, "write failed: %s\n", written.status().message().c_str());
      std::abort();
    }
    auto back = import::ImportTrace(out_path, fuzz::FuzzOptions());
    if (!back.ok()) {
      // A trace whose events were all dropped on the way in, or that holds none the format
      // can (Python frames alone in nsys or rocpd), has nothing to write back.
      if (trace->EventCount() == 0) continue;
      if (std::string_view(out).ends_with(".sqlite") || rocpd) {
        if (trace->kernels.size() + want_memops + want_api + trace->cpu.size() == 0) continue;
      }
      std::fprintf(stderr, "%s does not read back: %s\n", out, back.status().message().c_str());
      std::abort();
    }
    fuzz::CheckTrace(*back);
    // Events that differed only in a field the format does not hold (a kernel's registers in
    // an .rpd) read back as exact repeats, which the reader drops and counts: the counts may
    // shrink by those, never grow.
    const size_t repeats = back->problems.Count(model::kDuplicateEvents);
    auto same = [repeats](size_t before, size_t after) {
      return after <= before && before - after <= repeats;
    };
    if (!same(trace->kernels.size(), back->kernels.size()) ||
        !same(want_memops, back->memops.size()) || !same(want_api, back->api.size())) {
      std::fprintf(stderr, "%s: kernels %zu -> %zu, memops %zu -> %zu, api %zu -> %zu\n", out,
                   trace->kernels.size(), back->kernels.size(), trace->memops.size(),
                   back->memops.size(), trace->api.size(), back->api.size());
      std::abort();
    }
  }
  return 0;
}
