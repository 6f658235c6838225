#pragma once

namespace gpuscope::cli {

// Parses the command line and runs one subcommand. The one place that prints fatal errors
// ("gpuscope: <message>") and picks the exit code: 0 ok, 2 bad usage or unusable input.
int Main(int argc, char** argv);

}  // namespace gpuscope::cli
