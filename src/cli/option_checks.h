#pragma once
// The one place the command line's messages are worded: option values checked against a range
// or a list (with "did you mean" for a close misspelling), and CLI11's own parse errors said in
// the user's words (which argument is missing, what the value should have been), on one line.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpuscope::cli {

// A whole number in [lo, hi], else "--top: 'x' is not a whole number from 0 to 64".
CLI::Validator WholeIn(long long lo, long long hi);
// A finite number in [lo, hi] ("nan", "inf" and 1e308 are not thresholds anyone meant).
CLI::Validator Finite(double lo, double hi);
// One of `words`, else "'kernel' is not one of kernels, memops, ...; did you mean 'kernels'?".
CLI::Validator OneOf(std::vector<std::string> words);

// `word` is not one of `words`: the line saying so, with the nearest one when it is close.
std::string NotOneOf(const std::string& what, const std::string& word,
                     const std::vector<std::string>& words);

// A number for a message: "0.001", "1e+06" as "1000000", never hundreds of digits.
std::string NumberText(double x);

// CLI11's parse error `e` of the command line `app` parsed, as one line a user reads: a missing
// positional argument named as the command's usage names it ("diff: the AFTER trace is missing
// (gpuscope diff BEFORE AFTER)"), a value that is not a number said as such.
std::string UserMessage(const CLI::App& app, const CLI::ParseError& e);

// The help formatter of every command: descriptions wrapped to the terminal's width (at most
// 100 columns), option types without CLI11's validator text ("INT", not "INT:INT in [0 - 64]").
std::shared_ptr<CLI::Formatter> HelpFormatter();

}  // namespace gpuscope::cli
