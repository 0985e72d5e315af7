// The top-like terminal view of `hearth stacks` (live, from the sampler) and `hearth replay`
// (from a recording): a pure function from rows to the screen's text, so it is testable without
// a terminal and both verbs look the same. Callers own the terminal (raw mode, clearing,
// resize, keys) and turn their data into rows.
//
//   HEADER (one line, worded by the caller)
//       %   SAMPLES  THREAD                STACK (leaf first)
//    60.0         6  [worker-1 tid=11]     futex_wait_[k] ... < __lll_lock_wait < ...
//   STATE       FOR  THREAD                STACK (leaf first)       (only with thread rows)
//       D    1.25 s  [worker-1 tid=11]     futex_wait_[k] ... < ...
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace hearth::live {

// A stack and its samples: "root;…;leaf" (root first, the first frame naming the thread).
struct StackRow {
  std::string_view stack;
  uint64_t count = 0;
};

// A thread's state line: what it is doing now and for how long.
struct ThreadRow {
  std::string_view name;    // its root frame: "[worker-1 tid=11]"
  std::string_view frames;  // its stack below the root, root first, ';'-separated; may be empty
  char state = '?';         // R S D …, as /proc shows it
  double for_s = 0;         // how long it has had this state and stack, s
};

struct Screen {
  std::string header;
  std::span<const StackRow> stacks;    // most samples first; more than fit is fine
  uint64_t total = 0;                  // the samples the percentages are of
  std::span<const ThreadRow> threads;  // in display order; empty: no thread section
};

// Exactly ROWS lines (or fewer if there is less to show), none wider than COLS columns
// (counted in bytes; names are ASCII in practice, other bytes count one each). Each stack is
// shown leaf first ("leaf < caller < …"); a run of kernel frames shows as its leaf followed by
// "...", so the user-space caller stays in view. With thread rows, the stacks and the threads
// share the rows (each at least half when both need more); threads that do not fit are
// summed up on a last line ("... 88 more threads: 80 S, 8 R").
std::string render(const Screen& screen, int cols, int rows);

// `hearth stacks`'s figures for its header.
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

// "pid 42 (app)", or "3 processes" when PROCESSES > 0: the target as the headers name it.
std::string target_name(pid_t pid, const std::string& process_name, size_t processes);

// "hearth stacks  pid 42 (app)  10 samples x 3 threads  12 s  stall median 0.04 ms, max
// 0.10 ms  q: quit".
std::string live_header(const LiveStatus& status);

}  // namespace hearth::live
