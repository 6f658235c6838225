// Fuzz target for the schema of an SQLite trace: the input's first byte picks a family's fixture
// (nsys, rpd, rocpd, legacy rocprof results.db), the rest is SQL run on the fixture's database
// after it - renamed tables, views over them, VIRTUAL generated columns, triggers - so every
// mutation reaches the importer as a valid trace whose tables were replaced by something else
// (the per-family targets, fuzz_sqlite.cc, mutate whole fixtures, mostly their rows). The read
// must end (the guard refuses costly views and generated columns, the budget stops the rest) and
// what it keeps must pass the model's checks.
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz/fuzz_support.h"

using namespace gpuscope;

namespace {

struct Family {
  const char* format;
  const char* fixture;  // a .sql of tests/data
};

constexpr Family kFamilies[] = {{"nsys", "nsys_small.sql"},
                                {"rpd", "rpd_small.sql"},
                                {"rocpd", "rocpd_small.sql"},
                                {"rocprof-db", "rocprof_results_db.sql"}};

const std::string& FixtureSql(size_t k) {
  static std::string sql[std::size(kFamilies)];
  if (sql[k].empty()) {
    std::ifstream in(std::string(GPUSCOPE_FUZZ_DATA) + "/" + kFamilies[k].fixture);
    std::stringstream s;
    s << in.rdbuf();
    sql[k] = s.str() + "\n";
  }
  return sql[k];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t k = data[0] % std::size(kFamilies);
  std::string sql = FixtureSql(k) + std::string(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string path =
      fuzz::BuildDatabase(reinterpret_cast<const uint8_t*>(sql.data()), sql.size(), "schema.db");
  if (path.empty()) return 0;
  const import::Importer& importer = fuzz::ImporterNamed(kFamilies[k].format);
  fuzz::FinishAndCheck(importer, path, importer.read(path, fuzz::FuzzOptions()));
  return 0;
}
