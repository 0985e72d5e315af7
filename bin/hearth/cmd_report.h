// `hearth report DIR [--baseline OTHER]`: renders a report directory again (pictures and
// index.html) from the files `hearth record` wrote there.
#pragma once

#include <string>

namespace hearth::cli {

struct ReportArgs {
  std::string dir;
  std::string baseline;
  double width = 1200;
};

// 0: rendered; 1: nothing could be drawn; 2: bad usage.
int run_report(const ReportArgs& args);

}  // namespace hearth::cli
