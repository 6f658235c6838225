#pragma once
// The vocabulary of gpuscope's outputs: every word a table, a verdict or a finding uses, with one
// line saying what it means. `gpuscope help terms` prints it; docs/terms.md is its markdown form.

#include <string>
#include <string_view>

namespace gpuscope::render {

std::string TermsHelp(std::string_view format);

}  // namespace gpuscope::render
