// `hearth sched`: record the scheduler's view of processes (or of every task, or of one CPU)
// for a window and write states, tenancy, preemptors (and wakeups, cpu) TSVs and, with --ftrace,
// the events in ftrace text format into a directory.
#pragma once

#include <string>
#include <vector>

#include "bin/hearth/selection_cli.h"

namespace hearth::cli {

// The selection (-p, --comm, --inherit/--children) is taken at the start; the recorder follows
// the descendants of the processes selected, those created in the window too.
struct SchedArgs : SelectionArgs {
  bool all = false;       // -a
  int cpu = -1;           // --cpu, with -a
  double duration = 10;   // -d, s
  std::string output;     // -o DIR, created if missing
  bool wakeups = false;   // --wakeups
  bool ftrace = false;    // --ftrace: also sched.ftrace.txt
  double intervals = 60;  // --intervals: s at the window's end whose intervals stay whole
};

// Checks everything; returns every problem found (empty: fine).
std::vector<std::string> validate_sched(const SchedArgs& args);
// Runs the verb; returns the exit code (0 done, also when ended early by SIGINT/SIGTERM;
// 1 runtime failure; 2 bad usage).
int run_sched(const SchedArgs& args);

}  // namespace hearth::cli
