#pragma once
// JsonWriter: writes JSON text to a string as values arrive (no document tree). Integers stay
// integers (all times are int64 ns); doubles are printed with enough digits to round-trip.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::output {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view k);
  JsonWriter& String(std::string_view v);
  JsonWriter& Int(int64_t v);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Double(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

  // Appends `s` as a quoted JSON string (used by the streaming trace writers too).
  static void Escape(std::string& out, std::string_view s);

 private:
  void BeforeValue();
  void Newline();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
  bool pretty_;
};

}  // namespace gpuscope::output
