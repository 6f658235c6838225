#pragma once
// EventsCsvImporter: the events.csv that `gpuscope convert -o dir/` (or `-o x.csv`) writes, one
// row per event (columns in src/output/events_csv_writer.h), read back by column name - so a
// table filtered or edited in pandas or a spreadsheet can be analysed again. Given the
// directory, the registry reads its events.csv.

#include "import/importer.h"

namespace gpuscope::import::gpuscope_csv {

class EventsCsvImporter : public Importer {
 public:
  std::string_view name() const override { return "gpuscope-csv"; }
  std::string_view description() const override {
    return "gpuscope's events.csv (gpuscope convert -o dir/)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::gpuscope_csv
