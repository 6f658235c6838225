// KinetoReader's top-level members that say what ran where: "deviceProperties" (the devices)
// and "distributedInfo" (the rank in a job). Apart from the event loop (kineto_reader.cc),
// which compiles alone for speed; these run once per file.
#include "base/numbers.h"
#include "import/kineto/kineto_reader.h"

namespace gpuscope::import::kineto {

// distributedInfo: the rank and world size (other members are skipped). A value that is not a
// non-negative integer leaves the rank unknown.
Scan KinetoReader::ReadDistributedInfo(JsonCursor& c) {
  return ForEachScalarMember(c, &arena_,
                             [&](std::string_view key, std::string_view value, bool is_string) {
                               auto num = base::ParseInt64(value);
                               bool usable = !is_string && num && *num >= 0 && *num <= INT32_MAX;
                               if (key == "rank" && usable) top_->rank = static_cast<int32_t>(*num);
                               if (key == "world_size" && usable)
                                 top_->world_size = static_cast<int32_t>(*num);
                             });
}

Scan KinetoReader::ReadDevices(JsonCursor& c) {
  Scan s = c.Expect('[');
  if (s != Scan::kOk) return s;
  std::vector<model::Device> devices;
  for (bool first = true;; first = false) {
    char ch;
    if ((s = c.Peek(&ch)) != Scan::kOk) return s;
    if (ch == ']') {
      c.set_pos(c.pos() + 1);
      break;
    }
    if (!first && (s = c.Expect(',')) != Scan::kOk) return s;
    model::Device d;
    s = ForEachScalarMember(c, &arena_, [&](std::string_view key, std::string_view value, bool) {
      auto num = base::ParseInt64(value).value_or(-1);
      if (key == "id")
        d.id = static_cast<int32_t>(num);
      else if (key == "name")
        d.name = std::string(value);
      else if (key == "totalGlobalMem")
        d.total_memory = num;
      else if (key == "computeMajor" || key == "major")
        d.compute_major = static_cast<int32_t>(num);
      else if (key == "computeMinor" || key == "minor")
        d.compute_minor = static_cast<int32_t>(num);
      else if (key == "numSms" || key == "multiProcessorCount")
        d.compute_units = static_cast<int32_t>(num);
      else if (key == "warpSize")
        d.warp_size = static_cast<int32_t>(num);
    });
    if (s != Scan::kOk) return s;
    devices.push_back(std::move(d));
  }
  top_->devices = std::move(devices);
  return Scan::kOk;
}

}  // namespace gpuscope::import::kineto
