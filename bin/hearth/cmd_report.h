// `hearth report DIR [--baseline OTHER]`: renders a report directory again (pictures and
// index.html) from the files `hearth record` wrote there.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace hearth::cli {

struct ReportArgs {
  std::string dir;
  std::string baseline;
  double width = 1200;
};

void add_report_command(CLI::App& app, ReportArgs* args);
// 0: rendered; 1: nothing could be drawn; 2: bad usage.
int run_report(const ReportArgs& args);

}  // namespace hearth::cli
