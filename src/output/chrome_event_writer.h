#pragma once
// EventWriter: one Chrome trace event's text built in place (times in microseconds with exactly
// three decimals, relative to the trace's origin), then handed to the sink. Shared by the parts
// of the Chrome JSON writer (chrome_trace_writer.cc, chrome_trace_events.cc); internal to
// src/output.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/byte_sink.h"
#include "base/text.h"
#include "model/trace.h"
#include "output/json_writer.h"

namespace gpuscope::output::chrome_internal {

class EventWriter {
 public:
  EventWriter(base::ByteSink& out, int64_t origin) : out_(out), origin_(origin) {}

  void Begin(char ph, std::string_view cat, std::string_view name, int64_t pid, int64_t tid,
             int64_t ts_ns) {
    s_.clear();
    s_ += first_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
    first_ = false;
    s_ += ph;
    s_ += "\",\"cat\":";
    JsonWriter::Escape(s_, cat);
    s_ += ",\"name\":";
    JsonWriter::Escape(s_, name);
    s_ += ",\"pid\":";
    Int(pid);
    s_ += ",\"tid\":";
    Int(tid);
    s_ += ",\"ts\":";
    if (ph == 'M') {
      s_ += '0';
    } else {
      Micros(ts_ns - origin_);
    }
  }
  void Dur(int64_t ns) {
    s_ += ",\"dur\":";
    Micros(ns);
  }
  void Raw(std::string_view text) { s_ += text; }
  void BeginArgs() {
    s_ += ",\"args\":{";
    first_arg_ = true;
  }
  void ArgInt(std::string_view key, int64_t v) {
    ArgKey(key);
    Int(v);
  }
  void ArgString(std::string_view key, std::string_view v) {
    ArgKey(key);
    JsonWriter::Escape(s_, v);
  }
  void ArgBool(std::string_view key, bool v) {
    ArgKey(key);
    s_ += v ? "true" : "false";
  }
  void ArgDims(std::string_view key, const model::Dim3& d) {
    ArgKey(key);
    s_ += '[';
    Int(d[0]), s_ += ',', Int(d[1]), s_ += ',', Int(d[2]);
    s_ += ']';
  }
  // The members of a JSON object written by model::EncodeOpArgs, copied as they are.
  void ArgMembers(std::string_view object) {
    if (object.size() < 2 || object.front() != '{' || object.back() != '}' ||
        !base::IsCleanUtf8(object))
      return;
    std::string_view members = object.substr(1, object.size() - 2);
    if (members.empty()) return;
    if (!first_arg_) s_ += ',';
    first_arg_ = false;
    s_ += members;
  }
  void EndArgs() { s_ += '}'; }
  void End() {
    s_ += '}';
    out_.Write(s_);
  }

 private:
  void ArgKey(std::string_view key) {
    if (!first_arg_) s_ += ',';
    first_arg_ = false;
    JsonWriter::Escape(s_, key);
    s_ += ':';
  }
  void Int(int64_t v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    s_.append(buf, p);
  }
  // ns -> "123.456" (microseconds, exactly 3 decimals, no rounding).
  void Micros(int64_t ns) {
    if (ns < 0) s_ += '-', ns = -ns;
    Int(ns / 1000);
    int64_t frac = ns % 1000;
    char d[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                 static_cast<char>('0' + frac % 10)};
    s_.append(d, 4);
  }

  base::ByteSink& out_;
  int64_t origin_;
  std::string s_;
  bool first_ = true;
  bool first_arg_ = true;
};

}  // namespace gpuscope::output::chrome_internal
