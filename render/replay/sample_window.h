// A recording's timed samples (formats/timed_samples.h) seen from one of its rounds, as
// `hearth replay` shows them: every thread's state and stack at that round (with the round from
// which it has had them), and the stacks counted over a trailing window of rounds, as the live
// view counts them (thread root + frames, one per thread per round). Moving to any round is
// cheap: forward by applying each round's changes, anywhere by starting from the nearest
// checkpoint (every kCheckpointEvery rounds); the counts are updated by the rounds that enter
// and leave the window, not recounted. Thread-compatible; SAMPLES must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/timed_samples.h"

namespace hearth::replay {

using timed_samples::Samples;

// One thread at the current round.
struct ThreadNow {
  int64_t pid = 0;
  int64_t tid = 0;
  uint32_t thread = 0;  // index into Samples::threads (its root)
  uint32_t stack = 0;   // index into Samples::stacks
  char state = '?';
  uint32_t since = 0;  // the round from which it has had this state and stack
};

class SampleWindow {
 public:
  static constexpr size_t kCheckpointEvery = 256;

  // WINDOW_NS: the counts cover the rounds whose time is within WINDOW_NS before the current
  // round's (the current one included), and none before FIRST_ROUND; 0: every round from
  // FIRST_ROUND. SAMPLES has at least one round. Starts at FIRST_ROUND.
  SampleWindow(const Samples& samples, uint64_t window_ns, size_t first_round = 0);

  // Moves to ROUND (< rounds; not before first_round).
  void seek(size_t round);
  size_t round() const { return round_; }
  // The first round counted.
  size_t window_begin() const { return begin_; }
  size_t rounds_counted() const { return round_ + 1 - begin_; }

  // Every thread of every process present at the current round, by (pid, tid).
  const std::vector<ThreadNow>& threads() const;

  // The N stacks counted most, most first (ties: by stack text), each "ROOT;FRAMES" (ROOT
  // alone when it has no frames), as the live view shows them.
  struct Entry {
    std::string stack;
    uint64_t count = 0;
  };
  std::vector<Entry> top(size_t n) const;
  // Thread samples counted.
  uint64_t total() const { return total_; }
  // The stall of the rounds counted, ns: median and max.
  uint64_t stall_median_ns() const;
  uint64_t stall_max_ns() const;

 private:
  // The threads as of one round: (pid, tid) -> thread, sorted.
  struct Cursor {
    size_t round = SIZE_MAX;  // SIZE_MAX: none yet
    std::vector<ThreadNow> threads;
  };
  void apply(Cursor* c, size_t round) const;  // round == c->round + 1
  void move(Cursor* c, size_t round) const;
  void count(size_t from, size_t to, int sign);  // rounds [from, to]
  size_t begin_of(size_t round) const;

  const Samples& samples_;
  uint64_t window_ns_;
  size_t first_round_;
  std::vector<Cursor> checkpoints_;       // checkpoints_[i]: as of round i * kCheckpointEvery
  std::vector<uint32_t> root_of_thread_;  // thread index -> index into roots_
  std::vector<std::string> roots_;        // distinct roots
  Cursor head_, scratch_;
  size_t round_ = 0, begin_ = 0;
  std::unordered_map<uint64_t, uint64_t> counts_;  // root << 32 | stack -> samples
  uint64_t total_ = 0;
};

}  // namespace hearth::replay
