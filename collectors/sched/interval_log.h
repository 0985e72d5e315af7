// The per-thread state intervals the analysis emits (analysis.h), held compactly until the
// writers stream them into sched.intervals.tsv and sched.slots.tsv (formats/sched_intervals.h).
//
// Memory: only the intervals kept whole are held, ~3–6 bytes each (delta-encoded: a thread's
// intervals follow each other, so mostly a duration and a state byte); the time before
// `whole_from_ns` is folded into per-thread slots as it is emitted (one accumulator per thread per
// slot, at most ~3,600 slots: choose_keep). So a recording's memory grows with the switches of
// its last `--intervals` seconds, not of its whole window.
//
// Not thread-safe: the analysis's one owner adds; the writers read after finish().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/sched_intervals.h"
#include "formats/sched_tsv.h"

namespace hearth::sched {

// Where intervals are kept whole and how the time before is sliced.
struct IntervalKeep {
  uint64_t window_start_ns = 0;
  uint64_t whole_from_ns = 0;  // >= window_start_ns; a whole number of slots after it
  uint64_t slot_ns = 1'000'000'000;
};

inline constexpr uint64_t kDefaultKeepWholeNs = 60'000'000'000;  // --intervals default: 60 s

// For a window [START, END) whose last KEEP_NS are to be kept whole: whole_from_ns is the latest
// slot boundary at or before END - KEEP_NS (so at least KEEP_NS are whole, at most one slot
// more), or START when the window is not longer than KEEP_NS. Slots are 1 s, or when the time
// before whole_from would need more than 3,600 of them, the shortest of 2, 5, 10, 30 s, 1, 5,
// 10, 30, 60 min that needs at most 3,600 (then longer still).
IntervalKeep choose_keep(uint64_t start_ns, uint64_t end_ns, uint64_t keep_ns);

// One thread's intervals, in time order, and its slots.
class ThreadIntervals {
 public:
  // [FROM, TO) in STATE on CPU, with BY (formats/sched_intervals.h). Ignored when empty. FROM
  // must not come before the end of the thread's previous interval (the analysis's per-thread
  // time order); one that does is clipped and counted (overlaps()). The part before
  // keep.whole_from_ns goes to the slots; the rest is kept, joined to the previous interval
  // when they touch and agree in state, cpu and by.
  void add(const IntervalKeep& keep, uint64_t from, uint64_t to, char state, int cpu, int64_t by);
  // A switch-out at TS: counted in its slot when TS is before keep.whole_from_ns.
  void switch_out(const IntervalKeep& keep, uint64_t ts);
  // Commits the last interval; call once, after the last add().
  void finish();

  uint64_t intervals() const { return count_; }
  uint64_t overlaps() const { return overlaps_; }
  size_t bytes() const;

  // Reads the kept intervals back in time order (tid and pid left to the caller): start with
  // a default Cursor; false after the last.
  struct Cursor {
    size_t pos = 0;
    uint64_t end = 0;
    int cpu = -1;
  };
  bool next(Cursor* cursor, sched_intervals::Interval* out) const;
  struct SlotAcc {
    uint64_t index = 0;   // slot number from the window start
    uint64_t ns[6] = {};  // by sched_intervals::StateClass
    uint64_t switches = 0;
  };
  const std::vector<SlotAcc>& slots() const { return slots_; }

 private:
  struct Pending {
    bool valid = false;
    uint64_t start = 0, end = 0;
    char state = 0;
    int cpu = -1;
    int64_t by = -1;
  };
  void commit(const Pending& p);
  SlotAcc& slot(uint64_t index);
  void fold(const IntervalKeep& keep, uint64_t from, uint64_t to, char state);

  std::vector<uint8_t> log_;  // encoded intervals (interval_log.cpp)
  Pending pending_;
  uint64_t last_end_ = 0;  // of the last add(), for the order check
  uint64_t log_end_ = 0;   // end of the last committed interval
  int log_cpu_ = -1;       // its cpu
  uint64_t count_ = 0;
  uint64_t overlaps_ = 0;
  std::vector<SlotAcc> slots_;  // by index
};

// The reported threads' intervals (the threads of sched.states.tsv, same order: by tid).
struct ThreadLog {
  int64_t tid = 0;
  int64_t pid = 0;
  ThreadIntervals log;
};

struct IntervalStore {
  IntervalKeep keep;
  std::vector<ThreadLog> threads;  // by tid

  uint64_t intervals() const;
  uint64_t slots() const;
  uint64_t overlaps() const;  // 0 unless the analysis broke its time order (a bug)
  size_t bytes() const;       // memory held
  bool sliced() const { return keep.whole_from_ns > keep.window_start_ns; }
  sched_intervals::Kept kept() const { return {keep.whole_from_ns, keep.slot_ns}; }
  // Every row, as the files hold them (by tid, then time), one by one: false after the last.
  std::function<bool(sched_intervals::Interval*)> interval_rows() const;
  std::function<bool(sched_intervals::Slot*)> slot_rows() const;
};

struct IntervalFiles {
  uint64_t intervals = 0;  // rows written
  uint64_t slots = 0;
  uint64_t bytes = 0;  // of sched.intervals.tsv
};

// Writes DIR/sched.intervals.tsv and, when the window was sliced, DIR/sched.slots.tsv (else
// removes a sched.slots.tsv left there by an earlier recording), each atomically, streaming the
// rows (no second copy of them in memory). With BEFORE (slots from before the window, not the
// tracer's; null or empty: none), sched.slots.tsv is written with them first in each thread's
// rows, both files' window starting at BEFORE's first slot and marked by its `# untraced` line
// (formats/sched_intervals.h); BEFORE's slots must lie on the store's slot grid before
// header.window_start_ns (== BEFORE->mark.until_ns).
Result<IntervalFiles> write_interval_files(const std::string& dir,
                                           const sched_tsv::SchedHeader& header,
                                           const IntervalStore& store,
                                           const sched_intervals::UntracedSlots* before = nullptr);

}  // namespace hearth::sched
