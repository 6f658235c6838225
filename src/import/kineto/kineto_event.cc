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

// The args an event keeps, by key (with the spellings of other PyTorch versions), by the type of
// their field: integers, strings, and op-argument lists kept as written.
template <typename T>
struct ArgField {
  std::string_view key;
  T KinetoEvent::*field;
};
constexpr ArgField<uint64_t> kIdArgs[] = {{"correlation", &KinetoEvent::correlation},
                                          {"External id", &KinetoEvent::external_id},
                                          {"external id", &KinetoEvent::external_id}};
constexpr ArgField<int64_t> kInt64Args[] = {
    {"bytes", &KinetoEvent::bytes},
    {"size", &KinetoEvent::bytes},
    {"device", &KinetoEvent::device},
    {"stream", &KinetoEvent::stream},
    {"Python id", &KinetoEvent::python_id},
    {"Python parent id", &KinetoEvent::python_parent_id},
    {"wait_on_cuda_event_record_corr_id", &KinetoEvent::wait_on_record},
    {"wait_on_stream", &KinetoEvent::wait_on_stream}};
constexpr ArgField<uint32_t> kLaunchArgs[] = {{"registers per thread", &KinetoEvent::registers},
                                              {"shared memory", &KinetoEvent::shared_mem}};
constexpr ArgField<std::string_view> kStringArgs[] = {{ct::kArgCopyKind, &KinetoEvent::copy_kind},
                                                      {ct::kArgSrcKind, &KinetoEvent::src_kind},
                                                      {ct::kArgDstKind, &KinetoEvent::dst_kind},
                                                      {ct::kArgDomain, &KinetoEvent::domain},
                                                      {ct::kArgKernel, &KinetoEvent::kernel}};
constexpr ArgField<std::string_view> kRawListArgs[] = {
    {model::kArgInputDims, &KinetoEvent::input_dims},
    {model::kArgInputTypes, &KinetoEvent::input_types},
    {model::kArgConcreteInputs, &KinetoEvent::concrete_inputs}};

// What an arg is to the parser: one of the kinds below, or a table's base plus the arg's index
// there. Found from the key once per learnt spelling of the member (its tag, 0 until then; see
// ForEachMember), not once per event.
enum ArgTag : uint8_t {
  kTagUnclassified = 0,
  kTagOther,  // skipped
  kTagGrid,
  kTagBlock,
  kTagCollective,
  kTagStringArg = 16,   // + index in kStringArgs
  kTagRawListArg = 24,  // + index in kRawListArgs
  kTagIdArg = 32,       // + index in kIdArgs
  kTagInt64Arg = 64,    // + index in kInt64Args
  kTagLaunchArg = 96,   // + index in kLaunchArgs
};
static_assert(std::size(kStringArgs) <= 8 && std::size(kRawListArgs) <= 8 &&
              std::size(kIdArgs) <= 32 && std::size(kInt64Args) <= 32 &&
              std::size(kLaunchArgs) <= 32);

uint8_t ClassifyArg(std::string_view key) {
  auto in = [&](const auto& table, uint8_t base) -> uint8_t {
    for (size_t i = 0; i < std::size(table); ++i) {
      if (key == table[i].key) return static_cast<uint8_t>(base + i);
    }
    return kTagUnclassified;
  };
  if (key == "grid") return kTagGrid;
  if (key == "block") return kTagBlock;
  for (uint8_t t :
       {in(kIdArgs, kTagIdArg), in(kInt64Args, kTagInt64Arg), in(kLaunchArgs, kTagLaunchArg),
        in(kStringArgs, kTagStringArg), in(kRawListArgs, kTagRawListArg)}) {
    if (t != kTagUnclassified) return t;
  }
  if (model::IsCollectiveArgKey(key)) return kTagCollective;
  return kTagOther;
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

// A string arg's text into *out; anything but a string there is marked bad.
Scan ReadStringArg(JsonCursor& c, char first, std::deque<std::string>* arena, std::string_view* out,
                   bool* bad) {
  if (first == '{' || first == '[') {
    *bad = true;
    return c.SkipValue();
  }
  std::string_view text;
  bool is_string = false;
  if (Scan s = c.Scalar(&text, &is_string, arena); s != Scan::kOk) return s;
  if (is_string)
    *out = text;
  else
    *bad = true;
  return Scan::kOk;
}

// An op-argument list ("Input Dims", ...) as written, a span of the window like the name (the
// builder copies it); anything but an array there is skipped and marked bad.
Scan ReadRawList(JsonCursor& c, char first, std::string_view* out, bool* bad) {
  const char* begin = c.pos();
  if (Scan s = c.SkipValue(); s != Scan::kOk) return s;
  if (first != '[')
    *bad = true;
  else
    *out = std::string_view(begin, static_cast<size_t>(c.pos() - begin));
  return Scan::kOk;
}

Scan ParseArgs(JsonCursor& c, KinetoEvent* ev, std::deque<std::string>* arena,
               MemberPatterns* learnt) {
  return ForEachMember(c, arena, learnt, [&](std::string_view key, char ch, uint8_t& tag) {
    if (tag == kTagUnclassified) tag = ClassifyArg(key);
    Scan s = Scan::kOk;
    bool bad = false;
    if (tag >= kTagLaunchArg) {
      s = ReadIntArg(c, arena, &(ev->*kLaunchArgs[tag - kTagLaunchArg].field), &bad);
    } else if (tag >= kTagInt64Arg) {
      s = ReadIntArg(c, arena, &(ev->*kInt64Args[tag - kTagInt64Arg].field), &bad);
    } else if (tag >= kTagIdArg) {
      s = ReadIntArg(c, arena, &(ev->*kIdArgs[tag - kTagIdArg].field), &bad);
      if (tag == kTagIdArg) ev->has_correlation = !bad;  // kIdArgs[0]: "correlation"
    } else if (tag >= kTagRawListArg) {
      s = ReadRawList(c, ch, &(ev->*kRawListArgs[tag - kTagRawListArg].field), &bad);
    } else if (tag >= kTagStringArg) {
      s = ReadStringArg(c, ch, arena, &(ev->*kStringArgs[tag - kTagStringArg].field), &bad);
    } else if (tag == kTagGrid || tag == kTagBlock) {
      s = ReadDims(c, tag == kTagGrid ? ev->grid : ev->block, &bad);
    } else if (tag == kTagCollective && ev->collective_count < ev->collective.size()) {
      const char* begin = c.pos();
      if ((s = c.SkipValue()) != Scan::kOk) return s;
      ev->collective[ev->collective_count++] = {
          key, std::string_view(begin, static_cast<size_t>(c.pos() - begin))};
    } else {
      s = c.SkipValue();
    }
    if (s != Scan::kOk) return s;
    if (bad && !ev->bad_arg) {
      ev->bad_arg = true;
      ev->bad_arg_key = key;
    }
    return Scan::kOk;
  });
}

}  // namespace

Scan ParseKinetoEvent(JsonCursor& c, KinetoEvent* ev, std::deque<std::string>* arena,
                      EventPatterns* learnt) {
  MemberPatterns* const members = learnt != nullptr ? &learnt->event : nullptr;
  MemberPatterns* const args = learnt != nullptr ? &learnt->args : nullptr;
  return ForEachMember(c, arena, members, [&](std::string_view key, char ch) {
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
            if ((s = ParseArgs(c, ev, arena, args)) != Scan::kOk) return s;
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
