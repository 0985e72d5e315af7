// The moment view's model: every thread's state and stack in one sample (the one nearest an
// instant), grouped by identical stack and state, waits first. The one definition of the
// grouping: `hearth heatmap --moment` draws it (moment_text.h, moment_picture.h), and the
// heatmap page's moment view (templates/heatmap.js) groups the same way, which
// tests/browser/moment.test.mjs checks against this code's text.
//
// Runs are as the page decodes them: a thread (an index into Samples::threads) holds the state
// and stack of its last change at or before the sample, from that change's round on, unless the
// change is kGone. A sample of process P holds the threads of P (every thread when the file
// names one process only).
//
// Order of the groups (README, "The moment view"): D first, then lock waits, then I/O waits
// (a state other than R whose frame nearest the leaf that names a lock or an I/O call is such a
// frame), then R, then S, then the rest; within a rank, more threads first, then the longest
// duration, then the stack index, then the state letter. Threads within a group: the earlier run
// start first, then the thread index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/pattern.h"
#include "formats/timed_samples.h"

namespace hearth::moment {

enum class Rank : uint8_t { kBlocked, kLock, kIo, kRunning, kSleeping, kOther };

struct ThreadAt {
  uint32_t thread = 0;    // index into Samples::threads
  size_t since_round = 0;  // its run's first round (the change that set this state and stack)
  uint64_t since_ns = 0;   // how long it had been in this state and stack: from that round on
  bool first = false;     // that run is the thread's first: it may have been so before
};

struct Group {
  uint32_t stack = 0;  // index into Samples::stacks
  char state = '?';
  Rank rank = Rank::kOther;
  uint64_t longest_ns = 0;        // the largest since_ns of its threads
  std::vector<ThreadAt> threads;  // at least one
};

struct Moment {
  size_t round = 0;  // index into Samples::rounds
  uint64_t time_ns = 0;
  int64_t pid = 0;
  size_t threads = 0;  // sum of the groups' threads
  std::vector<Group> groups;
};

// The sample nearest TIME_NS (since time 0): the earlier one on a tie. SAMPLES has rounds.
size_t nearest_round(const timed_samples::Samples& samples, uint64_t time_ns);

// The moment of sample ROUND (< rounds.size()), of the threads whose root frames ONLY searches
// (nullptr: every thread).
Moment moment_at(const timed_samples::Samples& samples, size_t round, const Pattern* only);

// The frames of a stack (Samples::stacks), root first, as the page splits them at ';'.
std::vector<std::string_view> stack_frames(std::string_view stack);

// Whether a frame name names a lock wait (1), an I/O call (2), or neither (0), as the page's
// LOCK and IO regular expressions classify it.
int wait_kind_of_frame(std::string_view frame);

// The rank's words: "blocked (D)", "lock wait, S", ... (WHY); "blocked", "lock", "io",
// "running", "sleeping", "other" (KIND, the page's class); "blocked here", "waiting here", ...
// (HERE).
std::string rank_why(Rank rank, char state);
const char* rank_kind(Rank rank);
const char* rank_here(Rank rank);

}  // namespace hearth::moment
