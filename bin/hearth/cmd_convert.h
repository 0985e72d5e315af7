// `hearth convert IN OUT`: a profile from one format to another. IN: whatever `hearth flame`
// reads (folded stacks, gdb's backtraces, pprof, speedscope); OUT by its name: OUT.pb.gz pprof,
// OUT.speedscope.json speedscope, OUT.folded
// (or "-") folded stacks.
#pragma once

#include <string>

namespace hearth::cli {

struct ConvertArgs {
  std::string input;            // "-": standard input
  std::string output;           // OUT.pb.gz, OUT.speedscope.json, OUT.folded, "-"
  std::string format = "auto";  // input: auto, folded, gdb, pprof, speedscope
  double hz = 0;                // the sampling rate, when known: pprof's wall/nanoseconds
};

// Runs the verb; returns the exit code (0, 1 runtime failure, 2 bad usage or input).
int run_convert(const ConvertArgs& args);

}  // namespace hearth::cli
