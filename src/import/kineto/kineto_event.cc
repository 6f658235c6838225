#include "import/kineto/kineto_event.h"

#include <charconv>
#include <optional>
#include <type_traits>

#include "base/numbers.h"
#include "format/chrome_trace.h"
#include "model/op_args.h"

namespace gpuscope::import::kineto {
namespace {

namespace ct = format::chrome_trace;

// pid/tid are ints in most events but strings in spans ("Spans") and some old traces
// ("4093687616"); both spell the same id, so numeric strings are kept as their digits.
Scan IdText(JsonCursor& c, std::string_view* out, std::deque<std::string>* arena) {
  bool is_string = false;
  return c.Scalar(out, &is_string, arena);
}

Scan ReadDims(JsonCursor& c, uint32_t dims[3], bool* bad) {
  char ch;
  Scan s = c.Peek(&ch);
  if (s != Scan::kOk) return s;
  if (ch != '[') {
    // Triton launch ops carry "grid" as a string; only kernel events give it as [x, y, z].
    return c.SkipValue();
  }
  c.set_pos(c.pos() + 1);
  for (int i = 0;; ++i) {
    s = c.Peek(&ch);
    if (s != Scan::kOk) return s;
    if (ch == ']') {
      c.set_pos(c.pos() + 1);
      return Scan::kOk;
    }
    if (i > 0) {
      if ((s = c.Expect(',')) != Scan::kOk) return s;
    }
    std::string_view t;
    if ((s = c.Atom(&t)) != Scan::kOk) return s;
    auto v = base::ParseUint64(t);
    if (!v || *v > UINT32_MAX) *bad = true;
    if (i < 3 && v) dims[i] = static_cast<uint32_t>(*v);
  }
}

// Integer args. ROCm builds write some as strings ("bytes": "128", "stream": "0x0"), so a
// string holding a decimal or 0x-hex number is accepted too; null means absent.
template <typename Int>
void SetInt(std::string_view text, bool is_string, Int* out, bool* bad) {
  if (text == "null") return;
  std::optional<uint64_t> u;
  std::optional<int64_t> i;
  if (is_string && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    u = base::ParseHexUint64(text);
  } else if constexpr (std::is_unsigned_v<Int>) {
    u = base::ParseUint64(text);
  } else {
    i = base::ParseInt64(text);
  }
  if (u) {
    *out = static_cast<Int>(*u);
  } else if (i) {
    *out = static_cast<Int>(*i);
  } else {
    *bad = true;
  }
}

// The integer args an event keeps, by key (with the spellings of other PyTorch versions), by the
// type of their field.
template <typename Int>
struct IntArg {
  std::string_view key;
  Int KinetoEvent::*field;
};
constexpr IntArg<uint64_t> kIdArgs[] = {{"correlation", &KinetoEvent::correlation},
                                        {"External id", &KinetoEvent::external_id},
                                        {"external id", &KinetoEvent::external_id}};
constexpr IntArg<int64_t> kInt64Args[] = {
    {"bytes", &KinetoEvent::bytes},
    {"size", &KinetoEvent::bytes},
    {"device", &KinetoEvent::device},
    {"stream", &KinetoEvent::stream},
    {"Python id", &KinetoEvent::python_id},
    {"Python parent id", &KinetoEvent::python_parent_id},
    {"wait_on_cuda_event_record_corr_id", &KinetoEvent::wait_on_record},
    {"wait_on_stream", &KinetoEvent::wait_on_stream}};
constexpr IntArg<uint32_t> kLaunchArgs[] = {{"registers per thread", &KinetoEvent::registers},
                                            {"shared memory", &KinetoEvent::shared_mem}};

// Calls f(field) with the integer field that the arg `key` sets; false for any other key.
template <typename F>
bool ForIntArg(std::string_view key, KinetoEvent* ev, F&& f) {
  auto in = [&](const auto& table) {
    for (const auto& arg : table) {
      if (key == arg.key) return f(&(ev->*arg.field)), true;
    }
    return false;
  };
  return in(kIdArgs) || in(kInt64Args) || in(kLaunchArgs);
}

// An integer arg's value into *out; an object or array there is skipped and marked bad.
template <typename Int>
Scan ReadIntArg(JsonCursor& c, std::deque<std::string>* arena, Int* out, bool* bad) {
  Scan s = Scan::kOk;
  char ch = 0;
  if ((s = c.Peek(&ch)) != Scan::kOk) return s;
  if (ch == '{' || ch == '[') {
    *bad = true;
    return c.SkipValue();
  }
  std::string_view text;
  bool is_string = false;
  if ((s = c.Scalar(&text, &is_string, arena)) != Scan::kOk) return s;
  SetInt(text, is_string, out, bad);
  return Scan::kOk;
}

Scan ParseArgs(JsonCursor& c, KinetoEvent* ev, std::deque<std::string>* arena) {
  return ForEachMember(c, arena, [&](std::string_view key, char ch) {
    Scan s = Scan::kOk;
    bool bad = false;
    if (key == "grid" || key == "block") {
      if ((s = ReadDims(c, key == "grid" ? ev->grid : ev->block, &bad)) != Scan::kOk) return s;
    } else if (Scan r = Scan::kOk;
               ForIntArg(key, ev, [&](auto* field) { r = ReadIntArg(c, arena, field, &bad); })) {
      if (r != Scan::kOk) return r;
      if (key == "correlation") ev->has_correlation = !bad;
    } else if (key == ct::kArgCopyKind || key == ct::kArgSrcKind || key == ct::kArgDstKind ||
               key == ct::kArgDomain || key == ct::kArgKernel) {
      std::string_view text;
      bool is_string = false;
      if ((s = c.Peek(&ch)) != Scan::kOk) return s;
      if (ch == '{' || ch == '[') {
        bad = true;
        if ((s = c.SkipValue()) != Scan::kOk) return s;
      } else {
        if ((s = c.Scalar(&text, &is_string, arena)) != Scan::kOk) return s;
        std::string_view* out = key == ct::kArgCopyKind  ? &ev->copy_kind
                                : key == ct::kArgSrcKind ? &ev->src_kind
                                : key == ct::kArgDstKind ? &ev->dst_kind
                                : key == ct::kArgKernel  ? &ev->kernel
                                                         : &ev->domain;
        if (is_string)
          *out = text;
        else
          bad = true;
      }
    } else if (key == model::kArgInputDims || key == model::kArgInputTypes ||
               key == model::kArgConcreteInputs) {
      // Kept as written (a span of the window, like the name); the builder copies it.
      if ((s = c.Peek(&ch)) != Scan::kOk) return s;
      const char* begin = c.pos();
      if ((s = c.SkipValue()) != Scan::kOk) return s;
      std::string_view raw(begin, static_cast<size_t>(c.pos() - begin));
      if (ch != '[') {
        bad = true;
      } else {
        (key == model::kArgInputDims    ? ev->input_dims
         : key == model::kArgInputTypes ? ev->input_types
                                        : ev->concrete_inputs) = raw;
      }
    } else if (model::IsCollectiveArgKey(key) && ev->collective_count < ev->collective.size()) {
      const char* begin = c.pos();
      if ((s = c.SkipValue()) != Scan::kOk) return s;
      ev->collective[ev->collective_count++] = {
          key, std::string_view(begin, static_cast<size_t>(c.pos() - begin))};
    } else {
      if ((s = c.SkipValue()) != Scan::kOk) return s;
    }
    if (bad && !ev->bad_arg) {
      ev->bad_arg = true;
      ev->bad_arg_key = key;
    }
    return Scan::kOk;
  });
}

}  // namespace

Scan ParseKinetoEvent(JsonCursor& c, KinetoEvent* ev, std::deque<std::string>* arena) {
  return ForEachMember(c, arena, [&](std::string_view key, char ch) {
    Scan s = Scan::kOk;
    bool is_string = false;
    // Every field read below is a string or a scalar; anything else is skipped and marks the
    // event (ph and cat must be strings).
    bool container = ch == '{' || ch == '[';
    auto wrong_type = [&](std::string_view field) {
      if (ev->bad_field.empty()) ev->bad_field = field;
      return c.SkipValue();
    };
    // A time ("ts", "dur"): its number text; a string there is kept and noted (never a time).
    auto time = [&](std::string_view field, std::string_view* text, bool* was_string) {
      if (container) return wrong_type(field);
      if ((s = c.Scalar(text, &is_string, arena)) != Scan::kOk) return s;
      if (is_string) *was_string = true;
      return Scan::kOk;
    };
    switch (key.size()) {
      case 2:
        if (key == "ph") {
          if (ch != '"') return wrong_type("ph");
          std::string_view v;
          if ((s = c.String(&v, arena)) != Scan::kOk) return s;
          ev->ph = v.empty() ? '?' : v[0];
          return Scan::kOk;
        }
        if (key == "ts") return time("ts", &ev->ts, &ev->ts_is_string);
        if (key == "id") {
          if (container) return wrong_type("id");
          return c.Scalar(&ev->id, &is_string, arena);
        }
        break;
      case 3:
        if (key == "cat") {
          if (ch != '"') return wrong_type("cat");
          return c.String(&ev->cat, arena);
        }
        if (key == "pid" || key == "tid") {
          if (container) return wrong_type(key == "pid" ? "pid" : "tid");
          bool pid = key == "pid";
          if ((s = IdText(c, pid ? &ev->pid : &ev->tid, arena)) != Scan::kOk) return s;
          (pid ? ev->has_pid : ev->has_tid) = true;
          return Scan::kOk;
        }
        if (key == "dur") return time("dur", &ev->dur, &ev->dur_is_string);
        break;
      case 4:
        if (key == "name") {
          if (ch != '"') return wrong_type("name");
          return c.Scalar(&ev->name, &is_string, arena);
        }
        if (key == "args") {
          ev->args_begin = c.pos();
          if (ch == '{') {
            if ((s = ParseArgs(c, ev, arena)) != Scan::kOk) return s;
          } else if ((s = c.SkipValue()) != Scan::kOk) {
            return s;
          }
          ev->args_end = c.pos();
          return Scan::kOk;
        }
        break;
      default:
        break;
    }
    return c.SkipValue();
  });
}

}  // namespace gpuscope::import::kineto
