// Decoded scheduler tracepoint events: the plain data that flows from the recorder (which decodes
// ring-buffer records through libtraceevent) to the analysis and the ftrace text writer.
//
// Naming follows the kernel's events: `*_pid` fields are kernel task ids (thread ids), `*_tgid`
// the process (thread group) id, filled by the recorder from /proc at record time: -1 when
// unknown (the task exited before it could be looked up). Times are CLOCK_MONOTONIC ns (the
// instance's trace clock is "mono").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <variant>

namespace hearth::sched {

// Context every event carries: where and when it was recorded, and who was current.
struct EventContext {
  uint64_t ts_ns = 0;  // CLOCK_MONOTONIC
  int cpu = 0;
  pid_t common_pid = 0;       // the task current on CPU when the event fired
  std::string common_comm;    // its name as known at record time ("" unknown)
  uint8_t common_flags = 0;   // irqs-off, need-resched, hardirq, softirq bits (ftrace flags)
  uint8_t preempt_count = 0;  // low nibble: preempt depth; high nibble: migrate-disable depth
};

// sched:sched_switch. prev_state holds the letters the kernel prints for the raw value, decoded
// through the event's own print fmt: "R", "R+", "S", "D", "I", "T", … (see classify_state).
struct SwitchEvent {
  EventContext ctx;
  pid_t prev_pid = 0;
  pid_t prev_tgid = -1;
  int prev_prio = 0;
  std::string prev_comm;
  std::string prev_state;
  pid_t next_pid = 0;
  pid_t next_tgid = -1;
  int next_prio = 0;
  std::string next_comm;
};

// sched:sched_waking: PID is being woken (becomes runnable), by ctx.common_pid; or, with
// `enqueued`, sched:sched_wakeup: PID was just put on TARGET_CPU's run queue (same fields, a
// moment later; recorded without --wakeups, only for wakeups that may end an idle CPU).
struct WakingEvent {
  EventContext ctx;
  bool enqueued = false;  // sched_wakeup rather than sched_waking
  pid_t pid = 0;
  pid_t tgid = -1;
  int prio = 0;
  int target_cpu = 0;
  std::string comm;
};

// sched:sched_migrate_task.
struct MigrateEvent {
  EventContext ctx;
  pid_t pid = 0;
  pid_t tgid = -1;
  int prio = 0;
  int orig_cpu = 0;
  int dest_cpu = 0;
  std::string comm;
};

// A new task: a new thread of a target, or a child process (recorded with -p). From
// task:task_newtask, which carries the clone flags: current (ctx.common_pid) is the parent,
// and its comm the parent's (a new task starts with its parent's name).
struct ForkEvent {
  EventContext ctx;
  pid_t parent_pid = 0;
  pid_t parent_tgid = -1;  // filled by the recorder
  std::string parent_comm;
  pid_t child_pid = 0;
  // The child's process: the parent's for a thread, the child's own pid for a new process
  // (filled by the recorder from `thread`; -1 unknown).
  pid_t child_tgid = -1;
  std::string child_comm;
  bool thread = false;  // CLONE_THREAD: a thread of the parent's process; else a new process
};

using SchedEvent = std::variant<SwitchEvent, WakingEvent, MigrateEvent, ForkEvent>;

inline const EventContext& context_of(const SchedEvent& e) {
  return std::visit([](const auto& v) -> const EventContext& { return v.ctx; }, e);
}

// Where off-CPU time goes, by the state a thread was switched out in. The values index the
// analysis's per-thread arrays; analysis.h's off_ns() and switches() name the sched.states
// columns of each (stopped_ns and switches_stopped came last, in format version 2).
enum class OffState : uint8_t {
  kRunnable = 0,  // "R" or "R+": preempted, still wants the CPU
  kSleeping = 1,  // "S": interruptible sleep
  kBlocked = 2,   // "D": uninterruptible sleep
  kOther = 3,     // anything else: "T" (job-control stop), "X", "Z", "P", "I", combinations
  kStopped = 4,   // "t": stopped by a tracer (ptrace: hearth's own stack sampler, gdb, strace)
};
constexpr int kOffStates = 5;

// The kernel's prev_state letters → OffState. "R" and "R+" (preempted in the kernel; on this
// kernel preemption on return to user space shows as plain "R") are both runnable. "t" is
// __TASK_TRACED (0x08) in sched_switch's print fmt, a ptrace stop; "T" (__TASK_STOPPED, 0x04,
// SIGSTOP and friends without a tracer) stays other. The same letters serve proc(5) states of
// seeded threads ('t': tracing stop). A combination such as "D|K" (older kernels) counts as its
// first letter.
OffState classify_state(std::string_view letters);

}  // namespace hearth::sched
