// The pure computation behind `hearth sched`: a time-ordered stream of decoded scheduler events
// in, per-thread time-weighted states, CPU tenancy, preemptors and wakeup latencies out. No I/O:
// the recorder feeds it live, the unit tests feed it synthetic streams.
//
// Window edges: every thread's time is accounted from the window start to the window end.
// - A thread seeded at the start (it existed: /proc said R/S/D…) whose first event is a
//   switch-out was running since the start; one whose first event is a switch-in was off-CPU
//   since the start in its seeded state ('R' → runnable); one with no event at all spent the
//   whole window in its seeded state, where 'R' means on-CPU on its last CPU (a thread that ran
//   alone and never switched, e.g. pinned to an isolated core) unless that CPU switched other
//   tasks during the window: then it was runnable throughout.
// - A thread created during the window is accounted from its fork (sched_process_fork): runnable
//   until its first switch-in (a new task waits for its first run like a woken one; that wait
//   counts as a wakeup latency). Without a fork event, from its first event; if that event is a
//   switch-out, it is taken as running since the window start.
// - Intervals still open at the end are closed at the window end; a thread that exits (its
//   last switch-out says "X" or "Z") stops counting there, so its states add up to its life.
// - A switch-out of a thread the stream never switched in on that CPU means its switch-in was
//   not recorded (lost events; or a kernel that does not trace idle → task switches on some
//   CPUs, as this project's VM kernel does on CPU 1). The switch-in is then placed at the
//   latest known point: the thread's pending wakeup (sched_waking), else the CPU's previous
//   switch. Such switch-ins count in tenancy but give no wakeup latency.
// Off-CPU time goes to the state the thread was switched out in, from that switch-out to its
// wakeup, and to runnable from the wakeup (sched_waking or sched_wakeup) to its next switch-in:
// woken, it waits for a CPU, the kernel's state R (README, "Scheduler states"). The idle task
// (tid 0) is kept per CPU.
//
// Intervals: every piece of time the above accounts to a thread is also emitted as an interval of
// that thread (on CPU, or off CPU in the state it was switched out in, then runnable from its
// wakeup), so per thread and state the intervals and slots add up to its states row exactly
// (interval_log.h keeps them; formats/sched_intervals.h says what the columns mean). An
// off-CPU interval's `by`: the preemptor for a runnable switch-out, the waker (the task current
// at its sched_waking / sched_wakeup) for one that ended with a wakeup.
//
// Not thread-safe: one owner feeds events and calls finish().
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collectors/sched/events.h"
#include "collectors/sched/interval_log.h"
#include "formats/sched_tsv.h"

namespace hearth::sched {

// A thread alive at the start of the window, from /proc/PID/task/TID/stat.
struct ThreadSeed {
  pid_t tid = 0;
  pid_t pid = 0;  // tgid
  std::string comm;
  char proc_state = '?';  // proc(5) state letter
  int cpu = -1;           // CPU it last ran on
};

// Wakeup latency histogram buckets (sched_tsv::WakeupRow::histogram): bucket k (0..14) counts
// latencies in (1000·2^(k-1), 1000·2^k] ns (bucket 0: ≤ 1000 ns); bucket 15 those above
// 16.384 ms.
uint64_t latency_bucket_bound_ns(int k);  // upper bound of bucket k < 15
int latency_bucket(uint64_t latency_ns);

// The rows it hands to the writer are the sched TSVs' own (formats/sched_tsv.h).
using sched_tsv::CpuRow;
using sched_tsv::PreemptorRow;
using sched_tsv::TenancyRow;
using sched_tsv::ThreadStates;
using sched_tsv::WakeupRow;

// The columns of off-CPU state S in a states row: its time and its switch-outs.
uint64_t& off_ns(ThreadStates& row, OffState s);
uint64_t& switches(ThreadStates& row, OffState s);
uint64_t off_ns(const ThreadStates& row, OffState s);
uint64_t switches(const ThreadStates& row, OffState s);

// Everything the writers need (the tables, each sorted as the README states; cpu only with
// AnalysisOptions::cpu >= 0), and what the analysis noticed on the way.
struct SchedModel : sched_tsv::SchedTables {
  // Switch-ins of reported threads the kernel did not record (some virtual machines' idle paths;
  // a new thread's first run before the event filter selected it): placed at the thread's
  // wakeup (or fork) when one was recorded, else at the CPU's previous switch.
  uint64_t inferred_switch_ins = 0;
  uint64_t inferred_without_wakeup = 0;  // of those, placed without a wakeup: approximate
  // The reported threads' intervals and slots (the threads of `states`, in its order). Shared:
  // the model stays copyable; nobody changes it after finish().
  std::shared_ptr<const IntervalStore> intervals;
};

struct AnalysisOptions {
  uint64_t window_start_ns = 0;
  // Processes whose threads are reported; empty: every task (-a), the idle task included in the
  // tenancy and cpu views (as tid 0, "swapper/N").
  std::vector<pid_t> target_pids;
  int cpu = -1;  // ≥ 0: also compute the cpu view for this CPU
  // Also the processes they create during the window (a ForkEvent that is not a thread, from a
  // reported process), and theirs: each reported under its own pid.
  bool inherit = false;
  // Intervals are kept whole from this time on (<= window_start_ns: the whole window); the time
  // before it is folded into slots of slot_ns as the events come (choose_keep in
  // interval_log.h computes both).
  uint64_t intervals_whole_from_ns = 0;
  uint64_t slot_ns = 1'000'000'000;
};

class SchedAnalysis {
 public:
  explicit SchedAnalysis(AnalysisOptions options);
  ~SchedAnalysis();
  SchedAnalysis(const SchedAnalysis&) = delete;
  SchedAnalysis& operator=(const SchedAnalysis&) = delete;

  // Before the first event.
  void seed(const ThreadSeed& seed);

  // Events in non-decreasing ts order, all within the window (an earlier ts counts as equal).
  void add(const SchedEvent& event);
  void add(const SwitchEvent& event);
  void add(const WakingEvent& event);
  void add(const MigrateEvent& event);
  void add(const ForkEvent& event);

  // Closes open intervals at WINDOW_END_NS and returns the rows. Call once.
  SchedModel finish(uint64_t window_end_ns);

  size_t threads_seen() const;

 private:
  struct Thread;
  // What the stream last said about a CPU: who is on it since when.
  struct CpuState {
    uint64_t last_switch_ns = 0;
    int64_t current = 0;  // thread key
  };
  Thread& thread(pid_t tid, int cpu);
  // The thread an event is about (its identity noted); nullptr for pid <= 0.
  Thread* subject(pid_t pid, pid_t tgid, const std::string& comm, int cpu);
  void infer_missing_switch_in(Thread& t, uint64_t ts, int cpu);
  // LETTER: the interval state of the off-CPU time that follows (the kernel's first letter).
  void switch_out(Thread& t, uint64_t ts, int cpu, OffState state, char letter, pid_t next_tid);
  void switch_in(Thread& t, uint64_t ts, int cpu, bool observed = true);
  // Time accounted to T, on CPU or off it: added to its totals and emitted as an interval.
  void on_cpu(Thread& t, uint64_t from, uint64_t to, int cpu);
  void off_cpu(Thread& t, uint64_t from, uint64_t to, char letter, int cpu, int64_t by);
  // Whether T's intervals may be reported (known to belong to a process not reported: no).
  bool keeps_intervals(const Thread& t) const;
  uint64_t clamp_ts(uint64_t ts);

  AnalysisOptions options_;
  IntervalKeep keep_;
  std::unordered_set<pid_t> reported_pids_;  // target_pids, and with inherit their children
  uint64_t last_ts_ = 0;
  // Key: tid, or -(cpu+1) for the idle task of a CPU.
  std::unordered_map<int64_t, std::unique_ptr<Thread>> threads_;
  std::unordered_map<int, CpuState> cpus_;  // CPUs with at least one switch seen
};

}  // namespace hearth::sched
