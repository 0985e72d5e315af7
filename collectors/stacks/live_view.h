// The live, top-like view of `hearth stacks` on a terminal: a pure function from the counts
// so far to the screen's text, so it is testable without a terminal. The caller owns the
// terminal (raw mode, clearing, resize, 'q').
#pragma once

#include <string>

#include "collectors/stacks/stack_counts.h"

namespace hearth::stacks {

struct LiveStatus {
  pid_t pid = 0;
  std::string process_name;
  uint64_t samples = 0;  // sampling rounds so far
  size_t threads = 0;    // threads in the last round
  double elapsed_s = 0;
  double stall_median_ms = 0;  // whole-process stall per round
  double stall_max_ms = 0;
  size_t processes = 0;  // several processes sampled: how many (the header counts them)
};

// Exactly ROWS lines (or fewer if there is less to show), none wider than COLS columns
// (counted in bytes; names are ASCII in practice, other bytes count one each).
// Each stack is shown leaf first ("leaf < caller < …"); a run of kernel frames shows as its
// leaf followed by "...", so the user-space caller stays in view.
std::string render_live_view(const StackCounts& counts, const LiveStatus& status, int cols,
                             int rows);

}  // namespace hearth::stacks
