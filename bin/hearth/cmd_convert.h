// `hearth convert IN OUT`: a profile from one format to another. IN: whatever `hearth flame`
// reads (folded stacks, gdb's or eu-stack's backtraces, perf script, pprof, speedscope); OUT by its
// name: OUT.pb.gz pprof, OUT.speedscope.json speedscope, OUT.folded (or "-") folded stacks. And
// `hearth convert DIR OUT.trace.json`: a recording (its directory, or its sched.intervals.tsv) as
// a Chrome Trace Event JSON trace (render/timeline/chrome_trace.h).
#pragma once

#include <string>

namespace hearth::cli {

struct ConvertArgs {
  std::string input;            // "-": standard input
  std::string output;           // OUT.pb.gz, OUT.speedscope.json, OUT.trace.json, OUT.folded, "-"
  std::string format = "auto";  // input: auto, folded, gdb, pprof, speedscope
  double hz = 0;                // the sampling rate, when known: pprof's wall/nanoseconds
};

// Runs the verb; returns the exit code (0, 1 runtime failure, 2 bad usage or input).
int run_convert(const ConvertArgs& args);

}  // namespace hearth::cli
