// The always-on source of `hearth watch`'s `cpu` and `sched:` signals: every thread of the
// watched processes read from /proc at each of the watcher's ticks, with no tracing and no
// stop (README, "hearth watch: the cpu and sched signals").
//
// Per thread, two small files: /proc/PID/task/TID/stat (name and state now) and
// /proc/PID/task/TID/schedstat (ns on a CPU, ns waiting on a runqueue, slices: the scheduler's
// own totals, exact). Between two reads:
//   - running  = the run ns added / the interval;
//   - runnable = the runqueue-wait ns added / the interval;
//   - the rest of the interval (off a CPU and not counted as waiting) is split by the state
//     seen at the two reads: both S (or I) → sleeping; both D → blocked; one of each → half
//     each; one end S or D and the other neither (R, T, t, …) → all to that one; R at the end
//     and neither S nor D at the start → runnable (the kernel adds a wait to schedstat only
//     when the thread gets its CPU: a thread queued at the read has waited longer than the
//     file says; that guess is taken off the next interval's wait); anything else →
//     sleeping. An APPROXIMATION: a thread that went S → D → S between two reads shows as all
//     sleeping, a stopped one (T) as sleeping, and one that slept between two reads that
//     caught it in R as runnable.
// Threads are counted from their first read (no shares then); a thread gone at a read is
// dropped. Process CPU is the sum of the threads' run ns added over the interval, plus the run
// ns of a thread first seen in a process already read (it was born in the interval); the last
// slice of a thread that ended in the interval is lost, so a process whose threads live shorter
// than an interval reads less CPU than it used.
//
// Cost: per thread one pread of schedstat (its descriptor kept open, within a budget), its
// stat only when it may have changed (it ran, or 5 s passed), and the task directory listed
// only when the threads changed. tests/bench/proc_signals_bench.cpp (Release, 2 vCPUs,
// unpinned, threads asleep in a futex, busy host: load 8-13, other sessions' compiles and
// stress-ng --cpu 0): one read of a 100-thread process 0.3-0.4 ms of CPU (mean over 20-30
// reads, stat refreshes included), of a 1,000-thread one 2.5-3.7 ms; 3-4 µs per thread (with
// every file opened and closed at each read: 8-10 µs). At 1 Hz: ~0.04% and ~0.3% of one core.
//
// Not thread-safe: one ProcSignals per watcher loop.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "watch/rules.h"

namespace hearth::watch {

struct ThreadShares {
  pid_t tid = 0;
  pid_t pid = 0;
  std::string name;  // comm, at most 15 bytes
  // The state now, as /proc shows it (R S D I T t Z X P W K); for a thread asleep that has not
  // been on a CPU since, as its stat showed it up to 5 s ago (a thread woken and still queued
  // for its first slice may be R already).
  char state = '?';
  // Shares of the last interval (sum ~1); all 0 at the thread's first read.
  double running = 0, runnable = 0, sleeping = 0, blocked = 0;
  double span_s = 0;    // the interval the shares cover (s); 0 at the thread's first read
  uint64_t slices = 0;  // times it got a CPU over the interval (schedstat); 0 at the first read
  // How long it has been in `state` (s): since the first of the consecutive reads that saw it
  // in `state`; for a state off a CPU (S, D, …), since the first read after it last ran (its
  // run time and slice count unchanged since). 0 at the read that first sees it there.
  double in_state_s = 0;
  // In R, how long it has been queued without getting a CPU (s): since the first of the
  // consecutive reads that saw it in R with its run time and slice count unchanged since; 0
  // when it is not in R or has had a CPU since the last read.
  double queued_s = 0;
};

struct ProcSample {
  int64_t t_ns = 0;
  bool first = true;      // no read before this one: no shares, no CPU
  double interval_s = 0;  // since the previous read (s); 0 at the first
  double cpu = 0;         // the processes' CPU over the interval, in cores (1.5: one and a half)
  std::vector<ThreadShares> threads;  // by pid given, then tid ascending
  std::vector<std::string> errors;    // processes that could not be read: one line each
};

class ProcSignals {
 public:
  // Keeps each thread's two files open between reads (a pread each, where an open, a read and
  // a close cost three times as much), for at most MAX_OPEN_FILES descriptors; the threads
  // beyond open and close theirs at every read. By default half of RLIMIT_NOFILE's soft limit
  // (a watcher that raises its limit first gets more).
  ProcSignals();
  explicit ProcSignals(size_t max_open_files) : max_open_files_(max_open_files) {}

  // Reads every thread of PIDS now; T_NS: the caller's CLOCK_MONOTONIC time of the read (ns,
  // never going back). A process that is gone or unreadable is left out and named in errors
  // ("cannot read /proc/4242/task: No such file or directory"); a thread that ends during the
  // read is left out silently.
  ProcSample read(const std::vector<pid_t>& pids, int64_t t_ns);

 private:
  struct Pass;
  enum class Outcome { read, gone, failed };
  // Reads thread TID of PASS's process into PASS (its sample, next_).
  Outcome read_thread(Pass& pass, pid_t tid);

  struct Seen {  // a thread at the previous read
    uint64_t run_ns = 0, wait_ns = 0, slices = 0;
    std::string name;
    char state = '?';
    int64_t state_since_ns = 0;
    int64_t queued_since_ns = 0;  // in R without a CPU since (ThreadShares::queued_s)
    int64_t stat_t_ns = 0;        // when its stat was last read
    uint64_t queued_ns = 0;      // counted as runnable before the kernel counted it (Split::queued)
    UniqueFd stat_fd, sched_fd;  // its files, kept open (within the budget) or not (-1)
  };
  size_t max_open_files_ = 0;
  size_t held_fds_ = 0;                          // descriptors kept in seen_
  std::unordered_map<pid_t, Seen> seen_, next_;  // by tid
  // The threads read, by process: last time, and this time; the leader first, then by id.
  std::unordered_map<pid_t, std::vector<pid_t>> tids_of_, tids_next_;
  std::optional<int64_t> last_t_ns_;
  std::vector<pid_t> tids_;  // reused: one process's thread ids, as listed
  std::string buffer_;       // reused: one file's bytes
};

// The value of a `cpu` or `sched:` rule from SAMPLE (nullopt for other signals):
//   - cpu: sample.cpu (cores, compared with the threshold as a fraction: 150% → 1.5);
//   - sched: share: the fraction of the matching threads' time in STATE over the interval,
//     weighted by each thread's span;
//   - sched: duration: the longest in_state_s among the matching threads in STATE now (0 when
//     none is); for runnable, the longest queued_s (/proc shows running and runnable both as
//     R: a thread that has not had a CPU since the last read was queued all along).
// Threads match when the rule names no glob, or fnmatch(3) matches the glob on their name.
// nullopt at the first read, and when no thread matches (or none has shares yet).
std::optional<double> signal_value(const Rule& rule, const ProcSample& sample);

// --- Pure parts, exposed for tests and fuzzing. ---

struct StatLine {
  pid_t tid = 0;
  std::string_view comm;  // inside the text: from the first '(' to the last ')', exclusive
  char state = '?';
  long threads = 0;  // threads of its process (field 20)
};
// /proc/PID/task/TID/stat. comm may hold anything, ')' and blanks too ("a) b (c"): the state
// is the field after the LAST ')'.
Result<StatLine> parse_stat_line(std::string_view text);

struct SchedStat {
  uint64_t run_ns = 0;   // on a CPU
  uint64_t wait_ns = 0;  // runnable, waiting on a runqueue
  uint64_t slices = 0;   // times it got a CPU
};
// /proc/PID/task/TID/schedstat: "RUN WAIT SLICES\n".
Result<SchedStat> parse_schedstat(std::string_view text);

struct Split {
  double running = 0, runnable = 0, sleeping = 0, blocked = 0;
  double queued = 0;  // of runnable, the part guessed (R at the end: a wait not counted yet)
};
// The shares of an interval of INTERVAL_NS in which a thread ran RUN_NS and waited WAIT_NS,
// seen in state BEFORE at its start and NOW at its end (the rule above). When run + wait
// exceed the interval (the two reads' own timing), they are scaled to fill it. All 0 for an
// interval <= 0.
Split split_interval(int64_t interval_ns, uint64_t run_ns, uint64_t wait_ns, char before, char now);

// Whether a thread in /proc state STATE counts as in S for a `sched:` duration rule.
bool state_matches(SchedState s, char state);

}  // namespace hearth::watch
