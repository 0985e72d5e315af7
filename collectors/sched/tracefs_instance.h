// A private tracefs instance (its own ring buffer, events, pid list and clock), so that the
// global trace buffer and other tools' instances are never touched.
//
// Lifecycle: create() mounts tracefs at /sys/kernel/tracing when it is not mounted, removes
// instances left by killed hearth runs (`hearth-<pid>-<hex>` whose hearth process is gone),
// and creates and configures `hearth-<ourpid>-<random>` with tracing off. The destructor turns
// tracing off, disables the events and removes the instance (and unmounts tracefs if create()
// mounted it and nobody else uses it). A SIGKILLed run leaves its instance behind: the next
// create() removes it.
//
// Selecting tasks (task_filter.h): with tids, each event gets a `filter` on its task fields
// while the tids fit in a few comparisons (cheap; new threads are added by the caller, see
// fork_watcher.h); otherwise the instance's `set_event_pid` lists them and
// `options/event-fork` adds every task they create at fork time, in the kernel (no size limit,
// O(1) per event, but probes of its own on every switch and wakeup). An instance that outgrows
// the filter moves to the pid list during the recording.
//
// Not thread-safe; move-only.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sched/task_filter.h"
#include "common/result.h"

struct tracefs_instance;

namespace hearth::sched {

constexpr const char* kTracingDir = "/sys/kernel/tracing";
// The event of a new task (ForkEvent): it carries the clone flags, which tell a new thread from
// a new process (sched:sched_process_fork does not). Current is the parent.
constexpr const char* kNewTaskSystem = "task";
constexpr const char* kNewTaskEvent = "task_newtask";

struct InstanceOptions {
  std::vector<pid_t> tids;           // tasks to record; empty: every task
  bool use_filter = true;            // an event filter while the tids are few (else the pid list)
  bool switches = true;              // sched_switch
  int cpu = -1;                      // ≥ 0: record on this CPU only (tracing_cpumask)
  bool waking = false;               // also sched_waking: every wakeup of the selected tasks
  bool wakeups = false;              // also sched_wakeup: every wakeup of the selected tasks, the
                                     // moment each is put on a run queue
  bool migrations = false;           // also sched_migrate_task
  bool forks = false;                // also task_newtask (kNewTaskEvent)
  size_t buffer_kb_per_cpu = 0;      // 0: 16 MiB, ~85 ms of the worst case (pipe ping-pong)
  bool wake_on_every_event = false;  // buffer_percent 0: poll() returns as soon as data is in
  std::string name_suffix;           // appended to the instance name ("-fork")
};

enum class Selection { kEveryTask, kEventFilter, kPidList };

struct CpuLoss {
  int cpu = 0;
  uint64_t overrun = 0;         // overwritten (overwrite mode) events
  uint64_t commit_overrun = 0;  // lost to nested writes wrapping the buffer
  uint64_t dropped = 0;         // dropped because the buffer was full (our mode)
  uint64_t total() const { return overrun + commit_overrun + dropped; }
};

class TracefsInstance {
 public:
  static Result<TracefsInstance> create(const InstanceOptions& options);

  TracefsInstance(TracefsInstance&& other) noexcept;
  // No move assignment: members are assigned in declaration order, which would unmount before
  // removing the old instance.
  TracefsInstance& operator=(TracefsInstance&& other) = delete;
  TracefsInstance(const TracefsInstance&) = delete;
  TracefsInstance& operator=(const TracefsInstance&) = delete;
  ~TracefsInstance();

  // Turns tracing off and removes the instance now (the destructor does it otherwise). Close
  // every trace_pipe_raw reader first: an open one keeps the instance busy.
  void remove() { destroy(); }

  Result<void> start();  // tracing_on = 1
  Result<void> stop();   // tracing_on = 0
  // Adds tasks to the selection (new threads: forks seen, or the periodic /proc rescan). With
  // event filters, rewrites them (sched_switch first), or moves to the pid list when the tids
  // no longer fit in kMaxFilterComparisons. A no-op when selecting every task.
  Result<void> add_tids(const std::vector<pid_t>& tids);
  Selection selection() const { return selection_; }
  // Moves the selection to the pid list + event-fork (when forks can't be followed otherwise).
  Result<void> use_pid_list() {
    return selection_ == Selection::kEventFilter ? move_to_pid_list() : Result<void>{};
  }
  // True when the kernel adds the tasks the selected ones create (pid list + event-fork).
  bool kernel_follows_forks() const { return selection_ == Selection::kPidList; }
  // "event filter, 3 threads in 1 range" / "pid list, 412 threads" / "every task".
  std::string describe_selection() const;
  // Per-CPU losses from per_cpu/cpuN/stats, for the CPUs that have a stats file.
  Result<std::vector<CpuLoss>> losses() const;

  tracefs_instance* get() const { return instance_.get(); }
  const std::string& name() const { return name_; }

 private:
  TracefsInstance() = default;
  void destroy();

  Result<void> write_filter(const char* event, const std::string& expr,
                            const char* system = "sched");
  static int ncpus();
  std::vector<TidRange> ranges() const;  // the selected tids, free gaps bridged
  Result<void> write_filters(std::vector<TidRange> ranges);
  Result<void> write_pid_list(const std::vector<pid_t>& tids);
  Result<void> move_to_pid_list();

  struct Teardown {  // tracing off, events off, the instance removed and freed
    void operator()(tracefs_instance* inst) const;
  };
  struct Unmount {  // the tracefs mount this instance made
    void operator()(const char* dir) const;
  };
  // Declared in this order so the instance goes before the mount that holds it.
  std::unique_ptr<const char, Unmount> mount_;
  std::unique_ptr<tracefs_instance, Teardown> instance_;
  std::string name_;
  Selection selection_ = Selection::kEveryTask;
  std::vector<pid_t> tids_;              // sorted, unique: every task ever selected
  std::vector<TidRange> filter_ranges_;  // what the event filters select now
  InstanceOptions options_;
};

// Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: what tracefs tracing needs.
bool may_trace();

// Mounts tracefs at kTracingDir if needed. *MOUNTED tells whether this call mounted it.
Result<void> ensure_tracefs_mounted(bool* mounted);

// Removes instances named hearth-<pid>-… whose pid is not a live hearth process. Returns the
// names removed.
std::vector<std::string> remove_stale_instances();

// "hearth-<pid>-<hex>" → pid; 0 if NAME is not ours.
pid_t instance_owner(const std::string& name);

}  // namespace hearth::sched
