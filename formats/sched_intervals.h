// The scheduler's per-thread state intervals `hearth sched` and `hearth record` write (README,
// "Scheduler intervals and slots"): when each thread ran, waited for a CPU, slept, blocked, and
// who preempted or woke it. The data the timeline and the moment view read. Two files, each
// starting with the `#` header lines of the other sched TSVs (formats/sched_tsv.h) and a `# kept`
// line, ending with `# end ROWS`:
//
//   sched.intervals.tsv   one row per interval of one thread, from `whole_from_ns` to the
//                         window end: `tid pid start_ns end_ns state cpu by`
//   sched.slots.tsv       before `whole_from_ns` (only when the window was longer than the
//                         intervals kept whole): each thread's time per state per slot:
//                         `tid pid slot_start_ns on_cpu_ns runnable_ns sleeping_ns blocked_ns
//                          stopped_ns other_ns switches`
//
// Times are CLOCK_MONOTONIC ns (the trace clock), like `# window_ns`. Rows are sorted by tid,
// then time. A thread's intervals do not overlap and, within the window and the thread's life,
// tile it: summed per state with its slots, they give its sched.states.tsv row exactly.
//
// Slots from before the tracer (`hearth watch`'s reports: the ring's minutes before the
// trigger). Both files may carry an `# untraced` line after `# kept`:
//
//   # untraced	until_ns=N	resolution_ns=N	source=WORD
//
// The slots from the window start up to until_ns (the tracer's own window start, a slot boundary
// at or before whole_from_ns) are not the tracer's: they come from SOURCE (`proc`: each thread's
// /proc schedstat and state, read every resolution_ns, split as watch/proc_signals.h says), so
// they are coarse (at best resolution_ns) and approximate, their switches are the CPU slices
// schedstat counted, a slot may be only partly covered (its times then sum to less than
// slot_ns), and sched.states.tsv (the tracer's window only) does not count them. The
// `# window_ns` of these two files then starts at the first such slot, before the other sched
// files' window. A reader that does not know the line reads the rows as slots like any other.
//
// The row structs, the one writer (collectors/sched hands it rows one at a time: a busy
// recording has millions) and the one reader. Thread-compatible: no shared state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "formats/sched_tsv.h"

namespace hearth::sched_intervals {

inline constexpr int kVersion = 1;

// Interval states (the `state` column): one byte.
inline constexpr char kStateOnCpu = 'C';  // running on CPU `cpu`
inline constexpr char kStateRunnable =
    'R';  // waiting for a CPU: preempted, or woken (or new) and not
          // run yet: the kernel's R, sched.states' runnable_ns
inline constexpr char kStateSleeping = 'S';  // interruptible sleep
inline constexpr char kStateBlocked = 'D';   // uninterruptible sleep
inline constexpr char kStateTraced = 't';    // stopped by a tracer (ptrace): stopped_ns
// Any other letter: the kernel's, as it printed the state the thread was switched out in (`T`
// job-control stop, `I` idle kernel thread, `X` dead, `Z` zombie, `P` parked, …): other_ns.
inline constexpr char kStateUnknown = '?';  // switch-out not recorded (inferred): other_ns

// The sched.states.tsv column an interval state adds to.
enum class StateClass : uint8_t { kOnCpu, kRunnable, kSleeping, kBlocked, kStopped, kOther };
StateClass state_class(char state);
// A state the reader accepts: an ASCII letter or '?'.
bool valid_state(char state);

// sched.intervals.tsv: [start_ns, end_ns) of thread TID in STATE.
struct Interval {
  int64_t tid = 0;        // > 0
  int64_t pid = 0;        // tgid; 0 unknown (as sched.states.tsv)
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC, inclusive
  uint64_t end_ns = 0;    // exclusive; > start_ns
  char state = kStateUnknown;
  int cpu = -1;  // C: where it ran. R: the CPU it was preempted on, or for a woken thread the
                 // CPU it ran on next (or its wakeup queued it on). Other states: the CPU it
                 // left. -1 unknown.
  // R that began with a preemption: the preemptor's tid (0: the idle task). Any other off-CPU
  // state that ended with a wakeup: the waker's tid, the task current when the wakeup fired (0:
  // the idle task, e.g. an interrupt on an idle CPU). -1 otherwise or unknown.
  int64_t by = -1;
};

// sched.slots.tsv: thread TID's time in [slot_start_ns, slot_start_ns + slot_ns).
struct Slot {
  int64_t tid = 0;
  int64_t pid = 0;
  uint64_t slot_start_ns = 0;  // window start + k · slot_ns
  uint64_t on_cpu_ns = 0;
  uint64_t runnable_ns = 0;
  uint64_t sleeping_ns = 0;
  uint64_t blocked_ns = 0;
  uint64_t stopped_ns = 0;
  uint64_t other_ns = 0;
  uint64_t switches = 0;  // switch-outs in the slot
};

// What was kept: the `# kept` line, `# kept	whole_from_ns=N	slot_ns=N`.
struct Kept {
  // Intervals whole from here to the window end (= the window start: the whole window);
  // window start <= whole_from_ns <= window end, a whole number of slots after the start.
  uint64_t whole_from_ns = 0;
  uint64_t slot_ns = 1'000'000'000;  // the slots' length before whole_from_ns; > 0
};

// The `# untraced` line: slots before UNTIL_NS are not the tracer's.
struct Untraced {
  uint64_t until_ns = 0;       // 0: no such line (every slot is the tracer's)
  uint64_t resolution_ns = 0;  // how often SOURCE was read; > 0 with the line
  std::string source;          // one word: [a-z0-9_]+ ("proc")
};

// Slots of another source than the tracer, before its window, with the line that marks them.
struct UntracedSlots {
  Untraced mark;            // mark.until_ns: the tracer window's start
  std::vector<Slot> slots;  // by tid, then slot start; on the grid of the slots (a whole
                            // number of slot_ns before mark.until_ns)
};

// --- Writing ---

enum class FileKind : uint8_t { kIntervals, kSlots };

// The header lines, the `# kept` line (and the `# untraced` line, when UNTRACED has an until_ns)
// and the column names line of KIND.
std::string format_header(FileKind kind, const sched_tsv::SchedHeader& header, const Kept& kept,
                          const Untraced& untraced = {});
// One row with its line end.
void append_interval(std::string* out, const Interval& row);
void append_slot(std::string* out, const Slot& row);
// The last line: `# end	ROWS`.
void append_end(std::string* out, uint64_t rows);

// Writes PATH atomically (temp name + rename): the header, the rows NEXT hands out one by one
// (it returns false after the last), in the order given, and `# end`. Returns the rows written.
Result<uint64_t> write_intervals(const std::string& path, const sched_tsv::SchedHeader& header,
                                 const Kept& kept, const std::function<bool(Interval*)>& next,
                                 const Untraced& untraced = {});
Result<uint64_t> write_slots(const std::string& path, const sched_tsv::SchedHeader& header,
                             const Kept& kept, const std::function<bool(Slot*)>& next,
                             const Untraced& untraced = {});

// --- Reading ---

struct Header {
  FileKind kind = FileKind::kIntervals;
  int version = 0;
  std::vector<std::string> targets;  // as sched_tsv::Header::targets
  uint64_t window_start_ns = 0;      // CLOCK_MONOTONIC
  uint64_t window_end_ns = 0;
  uint64_t window_ns = 0;
  std::vector<std::pair<std::string, uint64_t>> events;
  uint64_t lost = 0;
  Kept kept;
  Untraced untraced;  // until_ns 0: no `# untraced` line
};

struct IntervalsFile {
  std::string path;  // as given; used in messages
  Header header;
  std::vector<Interval> intervals;  // sched.intervals: by tid, then start
  std::vector<Slot> slots;          // sched.slots: by tid, then slot start
  // sched.intervals: index of each thread's first interval, ascending (its intervals run to the
  // next thread's first, or to the end).
  std::vector<size_t> thread_first;
};

// Parses TEXT, the whole contents of a sched.intervals.tsv or a sched.slots.tsv; PATH only names
// it in messages ("DIR/sched.intervals.tsv:7: ..."). Checked:
// - line 1 is `# hearth sched.intervals 1` or `# hearth sched.slots 1`;
// - `# window_ns START END DURATION` (END >= START, DURATION == END - START), `# lost N` and
//   `# kept whole_from_ns=N slot_ns=N` (as Kept says) are in the header; `# target` and
//   `# events` and `# untraced` (as Untraced says: window start <= until_ns <= whole_from_ns, a
//   whole number of slots after the start, resolution_ns > 0, source one word) may be; unknown
//   `#` lines are ignored, as are blank lines and a '\r' before '\n';
// - the column names are exactly the kind's; every row has exactly as many tab-separated fields;
//   numbers are plain decimals (cpu and by may be -1), tids 1..4194304, pids and by <= 4194304,
//   cpus < 8192; a state is one letter or '?';
// - intervals: start < end, whole_from <= start, end <= window end; slots: slot start a slot
//   boundary before whole_from, its times summing to at most slot_ns;
// - rows by tid then time; a thread's intervals do not overlap, its slots appear once each;
// - the file ends with `# end ROWS`, ROWS the rows read, and a line end: a file cut short says
//   so, naming its last line.
// Garbage input gives an error, never a crash.
Result<IntervalsFile> parse_intervals(std::string_view text, const std::string& path);

// As parse_intervals, but keeps what comes before the first problem: returns the file with the
// rows read up to there (none when the header is bad), and the problem in *PROBLEM (message
// empty when there is none). What a picture draws from a damaged file.
IntervalsFile parse_intervals_prefix(std::string_view text, const std::string& path,
                                     Error* problem);

// Reads and parses the file at PATH. Errors: "cannot read PATH: REASON", or as above.
Result<IntervalsFile> read_intervals(const std::string& path);

// The moment view's question: each thread's interval containing time T (start <= T < end), by
// tid; threads with none (not alive at T, or T outside the kept intervals) are left out.
// O(threads · log intervals) on a file from parse_intervals.
std::vector<Interval> intervals_at(const IntervalsFile& file, uint64_t t);

}  // namespace hearth::sched_intervals
