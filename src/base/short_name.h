#pragma once
// The one rule for showing a long name (a demangled kernel, an op) in a narrow place; every text
// view - stats tables, analyze's where and evidence lines, diff, whatif, the HTML report - uses
// it:
//   1. a name that fits is shown whole;
//   2. the return type "void " is dropped;
//   3. bracket lists are folded, least informative first: the parameter list "(…)", then what is
//      nested inside the template arguments ("f<4, AddFunctor<…>>(…)"), then the template
//      arguments themselves ("f<…>(…)");
//   4. the qualified base name ("cudnn::detail::dgrad_engine") is kept whole, what follows it
//      cut at its end ("…");
//   5. only a base name longer than the width is cut: its middle namespaces first
//      ("at::…::CatArrayBatchedCopy"), then the end of the kernel's own name.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::base {

// `name` in at most `width` display columns by the rule above. UTF-8 aware.
std::string ShortenName(std::string_view name, size_t width);

// ShortenName over the rows of one column, keeping different names different: names that
// shorten to the same text show their base name and the region where they differ, read in the
// most folded form that tells them apart ("at::native::vectorized_elementwise_kernel<…" with
// "…AddFunctor<…>…" or "…MulFunctor<…>…"); what still collides is numbered ("… #2"). Equal
// inputs stay equal.
std::vector<std::string> ShortenNamesDistinct(const std::vector<std::string>& names, size_t width);

// A line of prose naming kernels or ops ("void f<float, 4>(int): 3 launches") with the names'
// "void " dropped and their bracket lists folded (steps 2 and 3, only brackets attached to a
// word) until the line fits `width`; never cut mid-name: what still does not fit is left to the
// caller's wrapping.
std::string FoldNamesInText(std::string_view text, size_t width);

// The qualified base name of `name`: without "void ", up to its first template argument or
// parameter list ("(anonymous namespace)" belongs to it).
std::string_view BaseName(std::string_view name);

}  // namespace gpuscope::base
