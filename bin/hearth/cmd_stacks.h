// `hearth stacks`: sample every thread's stack of running processes.
#pragma once

#include <string>
#include <vector>

#include "bin/hearth/selection_cli.h"

namespace hearth::cli {

// The selection (-p, --children, --comm) grows during the run: children and --comm matches
// started after it began join it.
struct StacksArgs : SelectionArgs {
  bool title = false;     // the process title at each sample as a frame under the process
  int count = 0;          // rounds; 0: by duration, or 1 when neither is given (batch)
  double duration = 0;    // s
  double frequency = 10;  // Hz
  std::string output;     // folded stacks; empty: live view on a terminal, else stdout
  std::string format = "folded";  // folded, or gdb: each sample as gdb's `thread apply all bt`
  std::string raw;        // every sample as a line
  std::string samples;    // the timed samples (formats/timed_samples.h)
  std::string threads = "split";
  bool state = false;
  std::string method = "auto";  // auto, bpf, ptrace
  bool one_at_a_time = false;   // ptrace: force one thread at a time (default for -n > 1)
  bool all_stop = false;        // ptrace: force all threads stopped together (default for -n 1)
  size_t max_frames = 128;
  bool no_kernel = false;
  double stop_timeout_ms = 10;
  size_t stack_bytes = 32 << 10;
  bool verbose = false;  // where hearth's own time went, on stderr
  std::string symbol_cache;  // --symbol-cache: a directory, "off", or "" (the default one)
};

std::vector<std::string> validate_stacks(const StacksArgs& args);
int run_stacks(const StacksArgs& args);

}  // namespace hearth::cli
