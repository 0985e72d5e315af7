// `hearth chart`: scheduler recordings (DIR/sched.*.tsv) and MMV series (`hearth mmv`'s TSV)
// -> charts in one SVG (or PNG/PDF).
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

// The command line as given, before validation.
struct ChartArgs {
  std::vector<std::string> inputs;  // sched.*.tsv files, MMV series, or directories of them
  std::string output;               // .svg .png .pdf; "-" or empty: SVG on stdout (not a tty)
  std::string title;
  std::string sort = "runnable";  // charts::parse_sort_key
  bool group_threads = false;
  double width = 1200;  // px
  double scale = 1;     // PNG pixel density
  std::string metrics;  // MMV series: only metrics matching this regex (empty: all)
  size_t max_panels = 60;
};

// Checks everything that needs no file; returns every problem found (empty: fine).
std::vector<std::string> validate_chart(const ChartArgs& args);
// Runs the verb; returns the exit code (0, 1 runtime failure, 2 bad usage or input).
int run_chart(const ChartArgs& args);

}  // namespace hearth::cli
