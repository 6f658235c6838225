#include "base/short_name.h"

#include <algorithm>
#include <map>

#include "base/text.h"

namespace gpuscope::base {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …
constexpr std::string_view kAnonymous = "(anonymous namespace)";
constexpr std::string_view kVoid = "void ";

// Start of the code point holding byte `i`.
size_t CodePointStart(std::string_view s, size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

// A character of a name, or the '>' closing its template arguments ("f<…>(…)").
bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':' || c == '>';
}

std::string_view StripVoid(std::string_view s) {
  return s.size() > kVoid.size() && s.starts_with(kVoid) ? s.substr(kVoid.size()) : s;
}

// Where the base name of `s` (already without "void ") ends: its first '<' or '(' that does not
// open "(anonymous namespace)".
size_t BaseEnd(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' && s.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size() - 1;
    } else if (s[i] == '<' || s[i] == '(') {
      return i;
    }
  }
  return s.size();
}

// Which bracket lists FoldLists replaces with "…".
enum class Fold {
  kParams,  // parameter lists outside any template argument list
  kInner,   // those, and every list nested one level inside a template argument list
  kAll,     // every outermost list
};

// `s` with the lists `mode` names folded from byte `from` on (the base name before it is kept).
// '>' and ')' close only the bracket they match ("->" in a parameter list is text). `in_prose`:
// outside any list, only a bracket attached to a name opens one ("f<float>(int)", not "(9%)").
std::string FoldLists(std::string_view s, size_t from, Fold mode, bool in_prose = false) {
  std::string out(s.substr(0, from));
  std::vector<char> open;
  size_t folded_at = 0;  // the depth of the list being folded (0: none)
  for (size_t i = from; i < s.size(); ++i) {
    const char c = s[i];
    const bool folding = folded_at != 0;
    if (c == '(' && s.substr(i).starts_with(kAnonymous)) {
      if (!folding) out += kAnonymous;
      i += kAnonymous.size() - 1;
      continue;
    }
    const bool opens = !in_prose || !open.empty() || (i > 0 && NameChar(s[i - 1]));
    if ((c == '<' || c == '(') && opens) {
      const size_t depth = open.size();
      open.push_back(c);
      if (folding) continue;
      out += c;
      const bool fold = mode == Fold::kAll     ? depth == 0
                        : mode == Fold::kInner ? depth == 1 || (c == '(' && depth == 0)
                                               : c == '(' && depth == 0;
      if (fold) out += kEllipsis, folded_at = open.size();
      continue;
    }
    if ((c == '>' || c == ')') && !open.empty() && open.back() == (c == '>' ? '<' : '(')) {
      const bool closes = folded_at == open.size();
      open.pop_back();
      if (closes) folded_at = 0;
      if (closes || !folding) out += c;
      continue;
    }
    if (!folding) out += c;
  }
  return out;
}

// The forms of a name, least shortened first: as it is, without "void ", then folded by kParams,
// kInner and kAll; `base` is the base name's length in bytes in the forms after the first.
struct Forms {
  std::vector<std::string> text;
  size_t base = 0;
};

Forms FormsOf(std::string_view name) {
  Forms f;
  std::string_view s = StripVoid(name);
  f.base = BaseEnd(s);
  f.text = {std::string(name), std::string(s), FoldLists(s, f.base, Fold::kParams),
            FoldLists(s, f.base, Fold::kInner), FoldLists(s, f.base, Fold::kAll)};
  return f;
}

// `s` cut to `cols` columns with "…" at its end (one, also when the cut ends in a folded list).
std::string CutEnd(std::string_view s, size_t cols) {
  if (DisplayWidth(s) <= cols) return std::string(s);
  std::string out(s.substr(0, PrefixBytes(s, cols > 0 ? cols - 1 : 0)));
  if (!out.ends_with(kEllipsis)) out += kEllipsis;
  return out;
}

// A base name longer than `width`: its first namespace, "…::" and as many of its last components
// as fit (the kernel's own name first); without room for the first namespace, "…::" and the own
// name, its end cut; a name without namespaces (Tensile's "Cijk_Alik_Bljk_...") cut at its end.
std::string CutBase(std::string_view base, size_t width) {
  std::vector<std::string_view> parts;
  for (size_t p = 0;;) {
    size_t q = base.find("::", p);
    parts.push_back(base.substr(p, q == std::string_view::npos ? q : q - p));
    if (q == std::string_view::npos) break;
    p = q + 2;
  }
  if (parts.size() < 2 || width < 8) return CutEnd(base, width);
  const std::string gap = std::string(kEllipsis) + "::";
  const size_t head_cols = DisplayWidth(parts[0]) + 2;
  std::string tail(parts.back());
  if (DisplayWidth(gap) + DisplayWidth(tail) > width) return gap + CutEnd(tail, width - 3);
  for (size_t k = parts.size() - 1; k-- > 1;) {
    std::string longer = std::string(parts[k]) + "::" + tail;
    if (head_cols + DisplayWidth(gap) + DisplayWidth(longer) > width) break;
    tail = std::move(longer);
  }
  std::string head = std::string(parts[0]) + "::";
  if (head_cols + DisplayWidth(gap) + DisplayWidth(tail) > width) head.clear();
  return head + gap + tail;
}

// The last form of a name (every list folded) in `width` columns: the base name whole and what
// fits of the rest, or the base name cut.
std::string CutFolded(std::string_view s, size_t base, size_t width) {
  const size_t base_cols = DisplayWidth(s.substr(0, base));
  if (base < s.size() && base_cols + 1 <= width)
    return std::string(s.substr(0, base)) + CutEnd(s.substr(base), width - base_cols);
  return CutBase(s.substr(0, base), width);
}

bool IdentChar(char c) { return c != ':' && c != '>' && NameChar(c); }

// `s` (a form of a name) in `width` columns showing its base name (the first `base` bytes, cut by
// CutBase when it leaves no room) and the bytes from `at` on: the base and the bracket after it,
// "…", a window from the start of the word holding `at` (or a few characters before it), "…" when
// the end is cut. Names that part inside their base show a short head and the window.
std::string ShortenAround(std::string_view s, size_t width, size_t base, size_t at) {
  const size_t open = base < s.size() ? base + 1 : base;  // with the '<' or '(' after the base
  const size_t least = 8;  // columns at least kept for what differs ("…" and a word's start)
  std::string out;
  size_t from = at;
  if (at >= open && width >= least + 8) {
    const size_t room = width - least;
    if (DisplayWidth(s.substr(0, open)) <= room)
      out = std::string(s.substr(0, open));
    else
      out = CutBase(s.substr(0, base), room - (open - base)) +
            std::string(s.substr(base, open - base));
    // The window: what the kept base leaves, from the start of the word that differs.
    const size_t window = width - DisplayWidth(out);
    while (from > open && at - from < window && IdentChar(s[from - 1])) --from;
    if (from > open && IdentChar(s[from - 1]))
      from = std::max(open, CodePointStart(s, at > 4 ? at - 4 : 0));
    if (from > open) out += kEllipsis;
  } else {
    size_t head_cols = std::min(width / 4, DisplayWidth(s.substr(0, at)));
    size_t head = PrefixBytes(s, head_cols);
    out = std::string(s.substr(0, head));
    from = std::max(head, CodePointStart(s, at > 4 ? at - 4 : 0));
    if (from > head) out += kEllipsis;
  }
  const size_t used = DisplayWidth(out);
  if (used + 2 > width) return ShortenName(s, width);
  return out + CutEnd(s.substr(from), width - used);
}

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The rows of one colliding group shown where they differ, in the most folded form that tells
// every two different names apart.
void SeparateGroup(const std::vector<std::string>& names, const std::vector<size_t>& rows,
                   size_t width, std::vector<std::string>& out) {
  std::vector<Forms> forms;
  for (size_t i : rows) forms.push_back(FormsOf(names[i]));
  size_t level = 0;
  for (size_t l : {3u, 2u, 1u}) {
    bool apart = true;
    for (size_t a = 0; a < rows.size() && apart; ++a)
      for (size_t b = a + 1; b < rows.size() && apart; ++b)
        apart = names[rows[a]] == names[rows[b]] || forms[a].text[l] != forms[b].text[l];
    if (apart) {
      level = l;
      break;
    }
  }
  for (size_t a = 0; a < rows.size(); ++a) {
    const std::string& s = forms[a].text[level];
    size_t at = 0;  // where this name parts from its nearest neighbour in the group
    for (size_t b = 0; b < rows.size(); ++b)
      if (names[rows[b]] != names[rows[a]])
        at = std::max(at, CommonPrefix(s, forms[b].text[level]));
    size_t base = forms[a].base + (level == 0 ? names[rows[a]].size() - StripVoid(s).size() : 0);
    out[rows[a]] = ShortenAround(s, width, base, at);
  }
}

// `text` without the "void " before a name (at its start or after a space).
std::string DropVoids(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((i == 0 || text[i - 1] == ' ') && text.substr(i).starts_with(kVoid) &&
        i + kVoid.size() < text.size() && NameChar(text[i + kVoid.size()])) {
      i += kVoid.size() - 1;
      continue;
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::string FoldNamesInText(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  std::string s = DropVoids(text);
  if (DisplayWidth(s) <= width) return s;
  std::string folded;
  for (Fold mode : {Fold::kParams, Fold::kInner, Fold::kAll}) {
    folded = FoldLists(s, 0, mode, true);
    if (DisplayWidth(folded) <= width) break;
  }
  return folded;
}

std::string_view BaseName(std::string_view name) {
  std::string_view s = StripVoid(name);
  return s.substr(0, BaseEnd(s));
}

std::string ShortenName(std::string_view name, size_t width) {
  if (DisplayWidth(name) <= width) return std::string(name);
  Forms f = FormsOf(name);
  for (const std::string& form : f.text)
    if (DisplayWidth(form) <= width) return form;
  return CutFolded(f.text.back(), f.base, width);
}

std::vector<std::string> ShortenNamesDistinct(const std::vector<std::string>& names, size_t width) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(ShortenName(n, width));
  // Rows whose shortened text collides while their names differ.
  std::map<std::string, std::vector<size_t>> by_text;
  for (size_t i = 0; i < out.size(); ++i) by_text[out[i]].push_back(i);
  for (auto& group : by_text) {
    const std::vector<size_t>& rows = group.second;
    bool differ = false;
    for (size_t i : rows) differ = differ || names[i] != names[rows[0]];
    if (differ) SeparateGroup(names, rows, width, out);
  }
  // What still collides is numbered, the number replacing the text's end: one number per
  // distinct name, unique across the column, so numbered texts never meet each other.
  std::map<std::string, std::vector<size_t>> again;
  for (size_t i = 0; i < out.size(); ++i) again[out[i]].push_back(i);
  std::map<std::string_view, int> number;
  std::vector<size_t> tagged;
  for (auto& group : again) {
    std::map<std::string_view, int> distinct;
    for (size_t i : group.second) distinct.emplace(names[i], 0);
    if (distinct.size() < 2) continue;
    tagged.insert(tagged.end(), group.second.begin(), group.second.end());
  }
  std::sort(tagged.begin(), tagged.end());  // numbered in row order
  for (size_t i : tagged) {
    int n = number.emplace(names[i], static_cast<int>(number.size()) + 1).first->second;
    std::string tag = " #" + std::to_string(n);
    out[i] = ShortenName(names[i], width > tag.size() + 4 ? width - tag.size() : 4) + tag;
  }
  return out;
}

}  // namespace gpuscope::base
