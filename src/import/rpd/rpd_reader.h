#pragma once
// RpdReader: the rows of an .rpd database into the model. Split by table family:
// rpd_reader.cc (ops and their launch details), rpd_api_reader.cc (API calls, autograd ops,
// monitor counters), rpd_extension_reader.cc (gpuscope's ext_gpuscope_* tables and name tags).

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/sqlite_db.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"
#include "model/trace.h"

namespace gpuscope::import::rpd {

// Reads one .rpd database into a trace: the rpd tables, then gpuscope's extension tables and
// name tags when the file was written by `gpuscope convert`. One reader per file.
class RpdReader {
 public:
  RpdReader(const base::SqliteDb& db, model::Trace* trace)
      : db_(db), t_(*trace), strings_(db, trace, "SELECT string FROM rocpd_string WHERE id = ?1") {}

  base::Status Read();

 private:
  model::StringId Arg(int64_t id) { return ustrings_ ? ustrings_->Get(id) : strings_.Get(id); }

  model::TrackId GpuTrack(int64_t gpu, int64_t queue);

  // The launch details of the API calls, read once into arrays sorted by API id. Joining them
  // to rocpd_op in SQL would make SQLite build a transient index over the unindexed
  // rocpd_api_ops.op_id for every import (2x slower on a 1 M-op file).
  struct Launch {
    int64_t api = 0;
    model::Dim3 grid{0, 0, 0}, block{0, 0, 0};
    uint32_t lds = 0, vgpr = 0;
  };
  std::vector<std::pair<int64_t, int64_t>> op_api_;     // (op id, api id), by op id
  std::vector<Launch> launches_;                        // by api id
  std::vector<std::pair<int64_t, int64_t>> copy_size_;  // (api id, bytes or -1), by api id

  // gpuscope's extension tables (written by its .rpd export; absent from other files): what
  // rpd v2 cannot say about a UserMarker range, an API call's domain, or a copy.
  struct ExtApi {
    int64_t api = 0;
    std::string kind;  // op, annotation, python, or an API domain name
    int64_t external_id = 0, python_id = -1, python_parent = -1;
  };
  struct ExtOp {
    int64_t op = 0;
    model::MemopKind kind = model::MemopKind::kOther;
    model::MemoryKind src = model::MemoryKind::kUnknown, dst = model::MemoryKind::kUnknown;
    int64_t bytes = -1;
  };
  std::vector<ExtApi> ext_api_;     // by api id
  std::vector<ExtOp> ext_op_;       // by op id
  std::vector<Launch> ext_kernel_;  // launch details by op id (Launch::api holds the op id)
  std::vector<std::pair<int64_t, std::string>> ext_args_;  // op marker's call args, by api id
  static int64_t Key(const ExtApi& e) { return e.api; }
  static int64_t Key(const ExtOp& e) { return e.op; }
  static int64_t Key(const std::pair<int64_t, int64_t>& p) { return p.first; }
  static int64_t Key(const Launch& l) { return l.api; }
  static int64_t Key(const std::pair<int64_t, std::string>& p) { return p.first; }

  // gpuscope's extension table `table`, when it has all of `columns` ("a, b, c"). One that lacks
  // some (a file edited by hand) is counted as a problem and left out; the rpd tables are still
  // read.
  bool UsableExt(std::string_view table, std::string_view columns);

  base::Status ReadExtensions();

  template <typename V, typename K>
  static auto FindSorted(const V& v, K key) {
    auto it =
        std::lower_bound(v.begin(), v.end(), key, [](const auto& e, K k) { return Key(e) < k; });
    return it != v.end() && Key(*it) == key ? it : v.end();
  }

  // One launch row: (id, gridX..Z, workgroupX..Z, groupSegmentSize, vgpr or NULL), the columns
  // both rocpd_kernelapi and ext_gpuscope_kernel are read as.
  static Launch ReadLaunch(const base::SqliteQuery& q);

  base::Status ReadLaunchDetails();

  base::Status ReadOps();

  // CLR command kinds that are queue bookkeeping, not work.
  static bool IsNonWork(std::string_view t);

  base::Status ReadApi();

  // ext_autogradapi (rocpd.autograd post-processor) names the autograd op behind each API call
  // but has no op times: an op becomes a CPU range spanning its calls on the thread.
  base::Status ReadAutograd();

  // Device, process and thread names that gpuscope's export keeps as rocpd_metadata tags.
  void ApplyNameTags();

  // GPU-side ranges that gpuscope's export keeps beside the rpd tables.
  base::Status ReadExtGpuRanges();
  // Device allocator events that gpuscope's export keeps (ext_gpuscope_memory).
  base::Status ReadExtMemory();
  // Python frames that gpuscope's export packs into ext_gpuscope_python.
  base::Status ReadExtPython();

  base::Status ReadMonitor();

  const base::SqliteDb& db_;
  model::Trace& t_;
  StringIdMap strings_;
  std::optional<StringIdMap> ustrings_;
  std::string schema_;
  NumericTracks gpu_tracks_{&t_, model::TrackKind::kGpuStream};
  NumericTracks cpu_tracks_{&t_, model::TrackKind::kCpuThread};
  std::set<int64_t> devices_;
  std::unordered_map<int64_t, uint32_t>
      api_index_;                // rocpd_api.id -> ApiTable row (before sorting)
  bool want_api_index_ = false;  // only ext_autogradapi needs api_index_
};

}  // namespace gpuscope::import::rpd
