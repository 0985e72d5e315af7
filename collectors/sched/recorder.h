// Records scheduler events of some processes (or of every task) for a time window into a
// private tracefs instance, decodes them with libtraceevent and streams them, in timestamp
// order, into the analysis and (optionally) the ftrace text writer.
//
// Reader: one non-blocking trace_pipe_raw reader per CPU (tracefs_cpu_open), all drained by one
// thread every poll period (20 ms). During the window it only moves raw sub-buffers (partial
// ones included) into a spool file (spool.h): no decoding, no formatting, no allocation per
// event, so one thread keeps up with millions of events per second and the target's CPUs see
// nothing but the tracepoints. The ring buffer (16 MiB per CPU) absorbs what arrives between
// polls. After the window the spool is replayed in exact timestamp order (a k-way merge of the
// CPUs' streams) through the decoder (decoder.h) into the analysis and the ftrace text.
//
// Threads: with -p, the tids of /proc/PID/task select the events in the kernel (an event filter
// while they are few, else the instance's pid list: tracefs_instance.h); the threads they create
// are added by the fork watcher (fork_watcher.h) or, with the pid list, by the kernel
// (options/event-fork). A new task is a thread when its clone flags say CLONE_THREAD
// (task_newtask), else a new process: that child and its descendants are recorded only with
// `inherit` (their own threads from then on, each under its own pid), and with `inherit` the
// descendants alive at the start too; `inherit` selects with the pid list from the start, so
// the kernel adds each child at its fork. Without it a child process is not followed by the fork
// watcher; the pid list follows it in the kernel, and the analysis leaves its rows out. A /proc
// rescan every 250 ms is a safety net and records each new thread's process while it lives. With
// -a the rescan maps every task to its process from the /proc/PID/task listings. At decoding, a
// task created in the window has its process from its fork (the parent's for a thread, its own
// pid for a process); another task is looked up in /proc/TID/status; one gone by then has an
// unknown process (0).
//
// Losses: per-CPU `overrun`, `commit overrun` and `dropped events` from per_cpu/cpuN/stats,
// summed into the header and reported per CPU.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectors/sched/analysis.h"
#include "collectors/sched/ftrace_text.h"
#include "collectors/sched/tracefs_instance.h"
#include "common/result.h"

namespace hearth::sched {

struct RecordOptions {
  std::vector<pid_t> pids;  // processes; empty with all = true
  bool inherit = false;     // with pids: also their descendant processes, each under its own pid
  bool all = false;         // every task
  int cpu = -1;             // with all: only this CPU
  double duration_s = 10;   // window length; the recording may end earlier (stop_requested)
  bool wakeups = false;     // every sched_waking and sched_migrate_task (else idle wakeups only)
  // The last this many seconds of the window keep every interval (model.intervals); the time
  // before is folded into slots (choose_keep in interval_log.h).
  double intervals_s = static_cast<double>(kDefaultKeepWholeNs) / 1e9;
  // Polled at least every poll period (and from the sleep between polls, interrupted by
  // signals): true ends the window early. Outputs are complete either way.
  std::function<bool()> stop_requested;
  FtraceTextWriter* ftrace = nullptr;  // not owned; receives every event in time order
  std::string spool_dir;  // where raw pages wait for decoding (an unnamed file); "": /tmp
  int poll_ms = 20;
};

struct RecordResult {
  sched_tsv::SchedHeader header;  // what every TSV's `#` header says
  SchedModel model;
  std::vector<CpuLoss> losses;  // per CPU
  uint64_t events = 0;          // all events read, every kind
  uint64_t threads = 0;         // threads reported (rows of sched.states.tsv)
  std::string instance_name;    // removed by the time record_sched returns
  uint64_t spool_bytes = 0;     // raw ring-buffer bytes read
  bool interrupted = false;     // stop_requested ended the window
  std::string selection;        // how the kernel selected the tasks (describe_selection())
  // For each thread the fork watcher added: from its fork to its selection, sorted.
  std::vector<uint64_t> follow_latency_ns;
  // Set when the fork watcher's thread failed: threads created after that were followed only
  // by the /proc rescan.
  std::string fork_watcher_failure;
};

// Errors (one line, with the fix): not root, tracefs not mountable, no such process, events
// missing. The instance is removed before this returns, also on error.
Result<RecordResult> record_sched(const RecordOptions& options);

}  // namespace hearth::sched
