#pragma once
// JsonWriter: writes JSON text to a string as values arrive (no document tree). Integers stay
// integers (all times are int64 ns); doubles are printed with enough digits to round-trip.

#include <cstdint>
#include <cstdio>
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
  // A value the source may lack: the value when `known`, else null.
  JsonWriter& IntIf(bool known, int64_t v) { return known ? Int(v) : Null(); }
  JsonWriter& DoubleIf(bool known, double v) { return known ? Double(v) : Null(); }
  JsonWriter& StringIf(bool known, std::string_view v) { return known ? String(v) : Null(); }

  // The text not yet streamed: the whole document unless StreamTo was called.
  const std::string& str() const { return out_; }

  // From now on, whenever a container ends with at least 1 MiB of text held, that text goes to
  // `sink` and is dropped, so a document of millions of rows never sits whole in memory; what
  // str() holds at the end is the rest. Write errors are the sink's (ferror).
  void StreamTo(std::FILE* sink) { sink_ = sink; }

  // Appends `s` as a quoted JSON string (used by the streaming trace writers too).
  static void Escape(std::string& out, std::string_view s);

 private:
  JsonWriter& Open(char bracket);   // '{' or '['
  JsonWriter& Close(char bracket);  // '}' or ']'
  void BeforeValue();
  void Newline();
  void MaybeFlush();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
  bool pretty_;
  std::FILE* sink_ = nullptr;
};

}  // namespace gpuscope::output
