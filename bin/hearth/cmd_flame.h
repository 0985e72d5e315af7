// `hearth flame`: folded stacks -> interactive SVG flamegraph (or PNG/PDF).
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

// The command line as given, before validation. Names follow flamegraph.pl's options.
struct FlameArgs {
  std::vector<std::string> inputs;  // empty or "-": standard input
  std::string output;               // .svg .png .pdf, "-" or empty: SVG on stdout
  std::string title, subtitle, notes;
  double width = 1200;
  double height = 16;  // frame height
  std::string minwidth = "0.1";
  std::string fonttype = "Verdana";
  double fontsize = 12;
  double fontwidth = 0.59;
  std::string countname = "samples";
  std::string nametype = "Function:";
  std::string colors = "hot";
  std::string bgcolors;
  std::string format = "auto";  // input: auto, folded, gdb
  bool hash = false, reverse = false, inverted = false, flamechart = false, negate = false;
  double factor = 1;
  double total = 0;
  std::string only_threads, grep;
  bool group_threads = false;
  size_t max_frames = 30000;
  double scale = 1;  // PNG pixel density
};

// Checks everything; returns every problem found (empty: fine).
std::vector<std::string> validate_flame(const FlameArgs& args);
// Runs the verb; returns the exit code (0, 1 runtime failure, 2 bad usage or input).
int run_flame(const FlameArgs& args);

}  // namespace hearth::cli
