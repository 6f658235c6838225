#include "model/op_args.h"

#include <charconv>

#include "base/json_bytes.h"

namespace gpuscope::model {
namespace {

// Copies a JSON value without the whitespace between tokens (strings kept as written). Writes
// each byte and advances past the kept ones without a branch; a value without strings (shapes,
// strides: most of them) needs no string tracking. Byte appends were 4% of a Kineto ingest.
void AppendMinified(std::string& out, std::string_view json) {
  const size_t at = out.size();
  out.resize(at + json.size());
  char* w = out.data() + at;
  if (json.find('"') == std::string_view::npos) {
    for (char ch : json) {
      *w = ch;
      w += base::IsJsonSpace(ch) ? 0 : 1;
    }
  } else {
    base::JsonStringTracker strings;
    for (char ch : json) {
      *w = ch;
      w += strings.Step(ch) || !base::IsJsonSpace(ch) ? 1 : 0;
    }
  }
  out.resize(static_cast<size_t>(w - out.data()));
}

// A minimal reader over the stored text: nested arrays of integers and strings is all the
// contract holds; anything else is skipped as an unknown value.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool Eat(char ch) {
    if (p_ < s_.size() && s_[p_] == ch) return ++p_, true;
    return false;
  }
  bool AtEnd() const { return p_ >= s_.size(); }
  char Peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }

  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (p_ < s_.size() && s_[p_] != '"') {
      char ch = s_[p_++];
      if (ch == '\\' && p_ < s_.size()) {
        char e = s_[p_++];
        if (e == 'n')
          ch = '\n';
        else if (e == 't')
          ch = '\t';
        else if (e == 'u') {
          p_ = std::min(s_.size(), p_ + 4);  // kept as '?': names here are ASCII in practice
          ch = '?';
        } else {
          ch = e;
        }
      }
      *out += ch;
    }
    return Eat('"');
  }
  // An integer, or false without consuming when the next token is not one.
  bool Integer(int64_t* v) {
    const char* b = s_.data() + p_;
    const char* e = s_.data() + s_.size();
    auto [q, ec] = std::from_chars(b, e, *v);
    if (ec != std::errc() || (q < e && (*q == '.' || *q == 'e' || *q == 'E'))) return false;
    p_ += static_cast<size_t>(q - b);
    return true;
  }
  // Skips any value; false on damage. Depth-limited.
  bool Skip(int depth = 0) {
    if (depth > 64) return false;
    char ch = Peek();
    if (ch == '"') {
      std::string ignored;
      return String(&ignored);
    }
    if (ch == '[' || ch == '{') {
      char close = ch == '[' ? ']' : '}';
      ++p_;
      if (Eat(close)) return true;
      do {
        if (close == '}') {
          std::string key;
          if (!String(&key) || !Eat(':')) return false;
        }
        if (!Skip(depth + 1)) return false;
      } while (Eat(','));
      return Eat(close);
    }
    size_t start = p_;
    while (p_ < s_.size() && s_[p_] != ',' && s_[p_] != ']' && s_[p_] != '}') ++p_;
    return p_ > start;
  }
  // A scalar as text ("1", "true", the contents of a string); containers as their raw text.
  bool ScalarText(std::string* out) {
    if (Peek() == '"') return String(out);
    size_t start = p_;
    if (!Skip()) return false;
    *out = std::string(s_.substr(start, p_ - start));
    return true;
  }
  // [d0, d1, ...] of sizes into dims; false (value skipped) when it is something else - a
  // negative integer too: no tensor has one, and a work model would price it below zero.
  bool Dims(std::vector<int64_t>* dims, bool* ok) {
    size_t start = p_;
    *ok = false;
    if (!Eat('[')) return Skip();
    dims->clear();
    if (Eat(']')) return *ok = true, true;
    do {
      int64_t v = 0;
      if (!Integer(&v) || v < 0) {
        p_ = start;
        return Skip();
      }
      dims->push_back(v);
    } while (Eat(','));
    if (!Eat(']')) return false;
    *ok = true;
    return true;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

bool ReadShapes(Reader& r, std::vector<ArgShape>* out) {
  if (!r.Eat('[')) return r.Skip();
  if (r.Eat(']')) return true;
  do {
    ArgShape a;
    if (r.Peek() == '[') {
      // A tensor's dims, or a list of tensors' dims ([[2, 3], [2, 3]]).
      Reader probe = r;
      probe.Eat('[');
      if (probe.Peek() == '[') {
        r.Eat('[');
        if (!r.Eat(']')) {
          do {
            std::vector<int64_t> d;
            bool ok = false;
            if (!r.Dims(&d, &ok)) return false;
            if (ok)
              a.list.push_back(std::move(d));
            else
              a.known = false;
          } while (r.Eat(','));
          if (!r.Eat(']')) return false;
        }
      } else if (!r.Dims(&a.dims, &a.known)) {
        return false;
      }
    } else {
      a.known = false;
      if (!r.Skip()) return false;
    }
    out->push_back(std::move(a));
  } while (r.Eat(','));
  return r.Eat(']');
}

bool ReadTexts(Reader& r, std::vector<std::string>* out) {
  if (!r.Eat('[')) return r.Skip();
  if (r.Eat(']')) return true;
  do {
    std::string v;
    if (!r.ScalarText(&v)) return false;
    out->push_back(std::move(v));
  } while (r.Eat(','));
  return r.Eat(']');
}

std::string DimsText(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

// One collective key's value into `c` (numbers only when the whole text is an integer).
bool ReadCollectiveKey(Reader& r, std::string_view key, CollectiveArgs* c) {
  std::string text;
  if (!r.ScalarText(&text)) return false;
  auto number = [&](int64_t* v) {
    int64_t n = 0;
    auto [q, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && q == text.data() + text.size()) *v = n;
  };
  if (key == kArgCollectiveName) c->name = text;
  if (key == kArgCollectiveDtype) c->dtype = text;
  if (key == kArgGroupName) c->group = text;
  if (key == kArgGroupDesc) c->group_desc = text;
  if (key == kArgGroupRanks) c->group_ranks = text;
  if (key == kArgInMsgNelems) number(&c->in_nelems);
  if (key == kArgOutMsgNelems) number(&c->out_nelems);
  if (key == kArgGroupSize) number(&c->group_size);
  if (key == kArgSeq) number(&c->seq);
  return true;
}

}  // namespace

bool IsCollectiveArgKey(std::string_view key) {
  for (std::string_view k : kCollectiveArgKeys) {
    if (k == key) return true;
  }
  return false;
}

std::string EncodeOpArgs(std::string_view dims_json, std::string_view types_json,
                         std::string_view concrete_json, std::span<const RawArg> collective) {
  std::string out;
  auto add = [&](std::string_view key, std::string_view value) {
    if (value.empty()) return;
    out += out.empty() ? "{\"" : ",\"";
    out += key;
    out += "\":";
    AppendMinified(out, value);
  };
  add(kArgInputDims, dims_json);
  add(kArgInputTypes, types_json);
  add(kArgConcreteInputs, concrete_json);
  for (const RawArg& a : collective) {
    if (IsCollectiveArgKey(a.key)) add(a.key, a.json);
  }
  if (!out.empty()) out += '}';
  return out;
}

bool DecodeOpArgs(std::string_view text, OpArgs* out) {
  *out = OpArgs{};
  if (text.empty()) return true;
  Reader r(text);
  if (!r.Eat('{')) return false;
  if (r.Eat('}')) return true;
  do {
    std::string key;
    if (!r.String(&key) || !r.Eat(':')) return false;
    bool ok = key == kArgInputDims        ? ReadShapes(r, &out->shapes)
              : key == kArgInputTypes     ? ReadTexts(r, &out->types)
              : key == kArgConcreteInputs ? ReadTexts(r, &out->concrete)
              : IsCollectiveArgKey(key)   ? ReadCollectiveKey(r, key, &out->collective)
                                          : r.Skip();
    if (!ok) return false;
  } while (r.Eat(','));
  return r.Eat('}') && r.AtEnd();
}

std::string ShapeText(const OpArgs& args) {
  std::string s;
  for (const ArgShape& a : args.shapes) {
    std::string one;
    if (!a.list.empty()) {
      one = "[";
      for (size_t i = 0; i < a.list.size(); ++i) {
        if (i) one += ", ";
        one += DimsText(a.list[i]);
      }
      one += "]";
    } else if (!a.dims.empty()) {
      one = DimsText(a.dims);
    }
    if (one.empty()) continue;
    if (!s.empty()) s += ", ";
    s += one;
  }
  return s;
}

}  // namespace gpuscope::model
