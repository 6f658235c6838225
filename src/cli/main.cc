#include "cli/gpuscope_main.h"

int main(int argc, char** argv) { return gpuscope::cli::Main(argc, argv); }
