// `hearth heatmap`: timed stack samples (a file, or a report directory's) -> the subsecond-offset
// heatmap: an interactive page (.html: range -> flamegraph, moment view), a static picture
// (.svg, .png, .pdf), or the folded stacks of a time range (.folded, or - for standard output).
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

// The command line as given, before validation.
struct HeatmapArgs {
  std::string input;   // a timed samples file, a raw samples file, or a report directory
  std::string output;  // .html .svg .png .pdf .folded, or "-" (folded on standard output)
  std::string bucket;  // a row's span: "20ms", "1s"; empty: chosen from the recording
  unsigned rows = 0;   // rows per column; 0: chosen
  std::string only_threads;
  // What is counted: all R D S other; empty: R for pictures (the colour), all for folded output.
  std::string state;
  std::string moment;  // --moment TIME: the moment view of the sample nearest TIME instead
  double from = -1;           // s since time 0; .folded only; < 0: from the start
  double to = -1;             // s; < 0: to the end
  std::string title;
  double width = 1200;
  double scale = 1;  // PNG pixel density
};

// Checks everything; returns every problem found (empty: fine).
std::vector<std::string> validate_heatmap(const HeatmapArgs& args);
// The samples file of INPUT: INPUT itself, or DIR/stacks.samples.txt, else DIR/stacks.raw.txt.
std::string samples_path(const std::string& input);
// Runs the verb; returns the exit code (0, also when a damaged file was drawn up to its damage;
// 1 runtime failure; 2 bad usage or input).
int run_heatmap(const HeatmapArgs& args);

}  // namespace hearth::cli
