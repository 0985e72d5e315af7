// The scheduler's view from before a trigger: each watched thread's time per state (running,
// runnable, sleeping, blocked) over each interval between two of the watcher's /proc reads (1 Hz),
// kept for the ring's span, so that a report's sched.slots.tsv holds the minutes before its
// trigger as well as the tracer's window after it (README, "hearth watch": what a report holds).
//
// The figures are those ProcSignals::read computed for the rules (watch/proc_signals.h: the
// scheduler's own schedstat totals, the rest of each interval split by the state /proc showed at
// its two ends): nothing is read twice. An APPROXIMATION at 1 s, as that file says; the report
// marks these slots untraced (formats/sched_intervals.h, `# untraced`).
//
// Memory: 20 bytes per thread per read (shares as 16-bit fractions of the interval, 1/65535 of a
// second at 1 Hz), plus ~40 per read: a 10-minute ring of 100 threads ~1.2 MB, of 1,000 ~12 MB.
//
// Thread-safe: add() and forget_before() on the watcher's thread, untraced_slots() on the
// recorder's (the report's scheduler collector) at the same time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/sched_intervals.h"
#include "watch/proc_signals.h"

namespace hearth::watch {

class SchedRing {
 public:
  // Takes the shares of SAMPLE (a read with an interval: the first read, and threads at their
  // first read, have none). Reads must come in time order.
  void add(const ProcSample& sample);

  // Drops the reads whose interval ends at or before T_NS (CLOCK_MONOTONIC ns).
  void forget_before(int64_t t_ns);

  // The slots of [FROM_NS, UNTIL_NS) on the grid UNTIL_NS - k·SLOT_NS (k = 1, 2, …), per thread
  // (by tid, then time), each state's time the overlap of the reads' intervals with the slot,
  // spread evenly within each interval; a slot no read covers is left out, one partly covered
  // sums to less than SLOT_NS. Switches: the CPU slices counted in the interval, by overlap.
  // Marked untraced until UNTIL_NS, source "proc", resolution the median interval between the
  // reads used, to the ms (1 s for a watcher on time; 0 with no slot). FROM_NS is rounded down to
  // the grid.
  sched_intervals::UntracedSlots untraced_slots(uint64_t from_ns, uint64_t until_ns,
                                                uint64_t slot_ns) const;

  size_t reads() const;
  size_t rows() const;  // thread rows over all reads
  // The time the reads cover, from the oldest's start to the newest's end (ns); 0 when empty.
  int64_t span_ns() const;
  size_t bytes() const;  // memory held, about

 private:
  struct Row {  // one thread over one read's interval
    int32_t tid = 0, pid = 0;
    uint16_t share[4] = {};  // running, runnable, sleeping, blocked: fractions of 65535
    uint32_t slices = 0;
  };
  struct Read {
    int64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC
    std::vector<Row> rows;             // by pid given, then tid (ProcSample's order)
  };
  mutable std::mutex mu_;
  std::deque<Read> reads_;  // oldest first
  size_t rows_ = 0;
};

// report.json's "sched_before_trigger" for SLOTS: {"source": "/proc schedstat and state",
// "resolution_s", "span_s" (from the first slot to the tracer's window), "slots", "threads"}.
nlohmann::json before_trigger_json(const sched_intervals::UntracedSlots& slots);

}  // namespace hearth::watch
