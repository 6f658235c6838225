#pragma once
// The CUDA event records of an Nsight Systems export (CUPTI_ACTIVITY_KIND_CUDA_EVENT: one row per
// cudaEventRecord, with the stream it was recorded on and the call's correlation id), and which
// of them a stream wait (a CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row of type stream-wait) waited
// for: by eventSyncId, which CUPTI gives both rows to link them, else - older exports, where an
// event id is reused by every record of the same cudaEvent_t - the process's latest record of
// that event id before the wait (correlation ids rise within a process).

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "import/nsys/nsys_schema.h"

namespace gpuscope::import::nsys {

struct EventRecord {
  int64_t global_pid = 0;  // of the process that recorded it
  int64_t event_id = 0;
  int64_t correlation = 0;  // of the cudaEventRecord call, as the file numbers it
  int64_t stream = 0;       // the stream it was recorded on
};

class EventRecords {
 public:
  // `sync_id` < 0: the row has none.
  void Add(const EventRecord& r, int64_t sync_id) {
    if (sync_id >= 0) by_sync_.emplace(sync_id, records_.size());
    records_.push_back(r);
    sorted_ = false;
  }
  // The record a wait of process `global_pid` (its call numbered `wait_correlation`) waited
  // for, by its eventSyncId when it has one (>= 0), else by its event id; nullptr: none.
  const EventRecord* Find(int64_t global_pid, int64_t sync_id, int64_t event_id,
                          int64_t wait_correlation) {
    if (sync_id >= 0) {
      auto it = by_sync_.find(sync_id);
      if (it != by_sync_.end()) return &records_[it->second];
    }
    if (!sorted_) Sort();
    const auto wanted = std::tuple(ProcessKey(global_pid), event_id, wait_correlation);
    auto it = std::lower_bound(order_.begin(), order_.end(), wanted,
                               [&](size_t a, const auto& k) { return Key(records_[a]) < k; });
    if (it == order_.begin()) return nullptr;
    const EventRecord& r = records_[*(it - 1)];
    return std::get<0>(Key(r)) == std::get<0>(wanted) && r.event_id == event_id ? &r : nullptr;
  }
  bool empty() const { return records_.empty(); }

 private:
  // Records of one process and event id, in call order.
  static std::tuple<int64_t, int64_t, int64_t> Key(const EventRecord& r) {
    return {ProcessKey(r.global_pid), r.event_id, r.correlation};
  }
  void Sort() {
    order_.resize(records_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(),
              [&](size_t a, size_t b) { return Key(records_[a]) < Key(records_[b]); });
    sorted_ = true;
  }
  std::vector<EventRecord> records_;
  std::unordered_map<int64_t, size_t> by_sync_;
  std::vector<size_t> order_;  // records_ by Key
  bool sorted_ = false;
};

}  // namespace gpuscope::import::nsys
