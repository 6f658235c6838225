#include "cli/option_checks.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "base/text.h"
#include "output/text_table.h"

namespace gpuscope::cli {
namespace {

// The command `app` parsed (the innermost), or `app` itself.
const CLI::App* ParsedCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->parsed()) return ParsedCommand(*sub);
  return &app;
}

// The command's positional arguments, as its usage line names them ("BEFORE AFTER").
std::string Usage(const CLI::App& command) {
  std::string out = "gpuscope " + command.get_name();
  bool program = false;
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_positional()) continue;
    if (o->get_name() == "command") {
      program = true;
      continue;
    }
    std::string name = base::AsciiUpper(o->get_name());
    out += " " + (o->get_required() ? name : "[" + name + "]");
  }
  return out + " [options]" + (program ? " -- PROGRAM [ARGS]" : "");
}

// A positional argument in a user's words.
std::string ArgumentWords(const std::string& name) {
  if (name == "trace") return "the trace to read";
  if (name == "before") return "the BEFORE trace (the run before the change)";
  if (name == "after") return "the AFTER trace (the run after the change)";
  if (name == "command") return "the program to profile";
  return base::AsciiUpper(name);
}

}  // namespace

std::string NumberText(double x) {
  if (std::isfinite(x) && std::fabs(x) < 1e15 && x == std::floor(x))
    return base::StrFormat("%.0f", x);
  return base::StrFormat("%g", x);
}

CLI::Validator WholeIn(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& in) -> std::string {
        char* end = nullptr;
        errno = 0;
        long long v = std::strtoll(in.c_str(), &end, 10);
        if (in.empty() || *end != '\0' || errno != 0 || v < lo || v > hi)
          return "'" + in + "' is not a whole number from " + std::to_string(lo) + " to " +
                 std::to_string(hi);
        return "";
      },
      "");
}

CLI::Validator Finite(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& in) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(in, x) || !std::isfinite(x) || x < lo || x > hi)
          return "'" + in + "' is not a number from " + NumberText(lo) + " to " + NumberText(hi);
        return "";
      },
      "");
}

std::string NotOneOf(const std::string& what, const std::string& word,
                     const std::vector<std::string>& words) {
  std::string near = base::ClosestWord(word, words);
  return "'" + word + "' is not " + what + ": " + base::JoinWords(words) +
         (near.empty() ? "" : "; did you mean '" + near + "'?");
}

CLI::Validator OneOf(std::vector<std::string> words) {
  return CLI::Validator(
      [words](std::string& in) -> std::string {
        for (const auto& w : words)
          if (w == in) return "";
        return NotOneOf("one of", in, words);
      },
      "");
}

std::string UserMessage(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* command = ParsedCommand(app);
  const std::string who = command == &app ? "" : command->get_name() + ": ";
  const std::string help = command == &app ? "gpuscope --help" : Usage(*command) + "; --help";
  std::string msg = e.what();
  if (const size_t p = msg.find(" is required"); p != std::string::npos) {
    const std::string name = msg.substr(0, p);
    const CLI::Option* o = command->get_option_no_throw(name);
    if (o != nullptr && o->get_positional())
      return who + ArgumentWords(name) + " is missing (" + help + ")";
  }
  if (msg.starts_with("Could not convert: ")) {  // "Could not convert: --top = abc"
    std::string rest = msg.substr(19);
    const size_t eq = rest.find(" = ");
    if (eq != std::string::npos)
      return who + rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a number (" + help +
             ")";
  }
  if (msg.ends_with(" missing") && msg.find(" required ") != std::string::npos)
    return who + msg.substr(0, msg.find(':')) + " needs a value (" + help + ")";
  return who + msg + " (" + help + ")";
}

namespace {

// CLI11's formatter with descriptions wrapped and validator text left out of option types.
class Wrapping : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string s = CLI::Formatter::make_option_opts(opt);
    // " INT:INT in [0 - 64]=4 ..." -> " INT=4 ...": what follows the type's ':' up to '=' or the
    // end is a validator's wording.
    if (size_t colon = s.find(':');
        colon != std::string::npos && s.find("Needs:") > colon && s.find("Excludes:") > colon) {
      size_t stop = s.find_first_of("= ", colon);
      s.erase(colon, stop == std::string::npos ? std::string::npos : stop - colon);
    }
    return s;
  }
  std::string make_option(const CLI::Option* opt, bool positional) const override {
    return Row(make_option_name(opt, positional) + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return Row(sub->get_display_name(), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    return base::WrapLongLines(CLI::Formatter::make_description(app), Width());
  }
  std::string make_footer(const CLI::App* app) const override {
    return base::WrapLongLines(CLI::Formatter::make_footer(app), Width());
  }

 private:
  static size_t Width() { return std::min<size_t>(100, output::TerminalWidth()); }
  // "  NAME   description", the description wrapped under itself.
  std::string Row(const std::string& name, const std::string& desc) const {
    const size_t col = get_column_width();
    std::string out = "  " + name;
    if (desc.empty()) return out + "\n";
    size_t used = base::DisplayWidth(out);
    if (used >= col) out += "\n", used = 0;
    out += std::string(col - used, ' ');
    std::string wrapped;  // each line of the description wrapped by itself
    for (size_t p = 0; p <= desc.size();) {
      size_t q = std::min(desc.find('\n', p), desc.size());
      wrapped += (p ? "\n" : "") + base::WrapHanging(desc.substr(p, q - p), Width() - col, 0);
      p = q + 1;
    }
    for (char c : wrapped) {
      out += c;
      if (c == '\n') out += std::string(col, ' ');
    }
    return out + "\n";
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> HelpFormatter() { return std::make_shared<Wrapping>(); }

}  // namespace gpuscope::cli
