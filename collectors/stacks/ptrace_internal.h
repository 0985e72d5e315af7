// What the parts of PtraceSession share (ptrace_session.cpp: attaching, serving, letting go;
// ptrace_stop_window.cpp: the stop windows): the thin syscall layer, the clocks and waits, the
// classification of a reaped status, and the StopWindow that brackets stops. Internal to
// collectors/stacks; not part of the session's interface.
#pragma once

#include <elf.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "collectors/stacks/ptrace_session.h"
#include "common/clock.h"

namespace hearth::stacks::ptrace_internal {

inline constexpr int kMaxAttachScans = 16;
inline constexpr uint64_t kShortPollPhaseNs = 2'000'000;  // poll every kShortPollNs for this long,
inline constexpr long kShortPollNs = 10'000;              // then every kLongPollNs
inline constexpr long kLongPollNs = 100'000;
inline constexpr unsigned long kTimerSlackNs = 1000;
inline constexpr std::chrono::microseconds kServicePeriod{1000};
// One-at-a-time walks (stop_each, detach): a thread not stopped after kWalkTurnNs stays
// interrupted while the next one's turn comes, so a thread slow to stop delays no other.
inline constexpr uint64_t kWalkTurnNs = 1'000'000;
// The longest wait for a runnable thread, ns: stop_each, detach. Only that thread waits.
inline constexpr uint64_t kEachLimitNs = 1'000'000'000;
inline constexpr uint64_t kDetachLimitNs = 2'000'000'000;
// All-stop rounds: the instant waits kAllStopInstantNs after the last interrupt (or the
// caller's timeout, if shorter), up to kAllStopInstantMaxNs while more than a few threads
// (kAllStopFewLeft, or 1/16 of them) are still running; a thread not stopped by then is taken
// alone when it stops. On 2 saturated vCPUs (CPU hogs, load average 30) most threads woken by
// the interrupts stopped within 1-3 ms, in bursts as the CPUs' current slices ended; now and
// then most of them needed 3-6 ms; a few (queued behind the hogs) took tens of ms.
inline constexpr uint64_t kAllStopInstantNs = 3'000'000;
inline constexpr uint64_t kAllStopInstantMaxNs = 6'000'000;
inline constexpr size_t kAllStopFewLeft = 2;
// All-stop rounds poll every 50 µs (100 µs after 2 ms): the threads woken by the interrupts
// need CPUs to reach their stops, ours among them, and a real-time poller waking every 10 µs
// preempts them there (measured: more threads left out of the instant).
inline constexpr long kAllStopPollNs = 50'000;
// All-stop rounds: threads left out of the instant have their /proc state read every this
// long; those in uninterruptible sleep are skipped at once instead of at the timeout.
inline constexpr uint64_t kAllStopDCheckNs = 250'000;
// All-stop rounds: the longest wait for a runnable thread (no CPU yet), ns. The others stay
// stopped meanwhile: the price of a consistent snapshot on a saturated host.
inline constexpr uint64_t kAllStopRunnableLimitNs = 1'000'000'000;

// --- Thin layer: raw results; callers copy errno on the next line. ---

inline long pt_seize(pid_t tid, unsigned long options) {
  return ::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(options));
}
inline long pt_interrupt(pid_t tid) {
  return ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
}
inline long pt_cont(pid_t tid, int sig) {
  return ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<uintptr_t>(sig)));
}
inline long pt_listen(pid_t tid) {
  return ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
}
inline long pt_detach(pid_t tid, int sig) {
  return ::ptrace(PTRACE_DETACH, tid, nullptr,
                  reinterpret_cast<void*>(static_cast<uintptr_t>(sig)));
}
inline long pt_getregs(pid_t tid, user_regs_struct* regs) {
  iovec iov = {regs, sizeof *regs};
  return ::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &iov);
}
inline pid_t wait_nohang(pid_t tid, int* status) {
  return ::waitpid(tid, status, WNOHANG | __WALL);
}
// Which child or tracee has something to report, without reaping it.
inline int peek_any(siginfo_t* info) {
  return ::waitid(P_ALL, 0, info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL);
}
// The same among the calling thread's own children and tracees (the tracees are the tracer
// thread's; another thread's children are not looked at).
inline int peek_own(siginfo_t* info) {
  return ::waitid(P_ALL, 0, info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL | __WNOTHREAD);
}

// The calling thread's scheduling policy (with SCHED_RESET_ON_FORK), or -1.
inline int get_policy() {
  return ::sched_getscheduler(0);
}
inline int set_policy(int policy, int priority) {
  sched_param param = {};
  param.sched_priority = priority;
  return ::sched_setscheduler(0, policy, &param);
}

// Waiting for threads to stop. Sleep rather than spin or sched_yield(): the tracees often need
// our CPU to reach their stop (a woken sleeper, a preempted spinner), and a yielding or
// spinning tracer keeps it until the next scheduler tick (4 ms here). Short sleeps first, then
// longer ones for threads that are slow to stop (D sleep). attach() lowers the timer slack so
// the short sleeps are short.
inline void backoff(uint64_t waited_ns) {
  timespec ts = {0, waited_ns < kShortPollPhaseNs ? kShortPollNs : kLongPollNs};
  ::nanosleep(&ts, nullptr);
}

inline void all_stop_backoff(uint64_t waited_ns) {
  timespec ts = {0, waited_ns < kShortPollPhaseNs ? kAllStopPollNs : kLongPollNs};
  ::nanosleep(&ts, nullptr);
}

enum class Stop : uint8_t {
  kInterrupt,  // PTRACE_EVENT_STOP with SIGTRAP: our interrupt, or a group-stop notification
  kGroupStop,  // PTRACE_EVENT_STOP with a stop signal: a job-control stop
  kSignal,     // signal-delivery-stop: the signal waits for us to pass it on
  kExec,       // PTRACE_EVENT_EXEC
  kOther,      // an event we did not ask for
  kExited,     // exited or killed: reaped
};

inline Stop classify(int status, int* sig) {
  *sig = 0;
  if (WIFEXITED(status) || WIFSIGNALED(status)) return Stop::kExited;
  if (!WIFSTOPPED(status)) return Stop::kOther;
  *sig = WSTOPSIG(status);
  unsigned event = static_cast<unsigned>(status) >> 16;
  if (event == PTRACE_EVENT_STOP) {
    bool job_control = *sig == SIGSTOP || *sig == SIGTSTP || *sig == SIGTTIN || *sig == SIGTTOU;
    return job_control ? Stop::kGroupStop : Stop::kInterrupt;
  }
  if (event == PTRACE_EVENT_EXEC) return Stop::kExec;
  if (event != 0) return Stop::kOther;
  return Stop::kSignal;
}

}  // namespace hearth::stacks::ptrace_internal

namespace hearth::stacks {

// Brackets a stop window: real-time priority on entry (see the header); on exit, also when a
// visit throws, resumes every thread still stopped and restores the priority.
struct PtraceSession::StopWindow {
  StopWindow(PtraceSession& s, StopStats& st, Release r)
      : session(s),
        stats(st),
        release(r),
        restore_policy(s.enter_realtime()),
        start_ns(monotonic_ns()) {
    stats.realtime = stats.realtime || restore_policy >= 0;
  }
  ~StopWindow() {
    for (Slot& slot : session.slots_) {
      if (slot.state == State::kStopped) session.resume(slot, stats, release);
    }
    session.leave_realtime(restore_policy);
  }
  StopWindow(const StopWindow&) = delete;
  StopWindow& operator=(const StopWindow&) = delete;

  PtraceSession& session;
  StopStats& stats;
  const Release release;
  const int restore_policy;
  const uint64_t start_ns;
};

}  // namespace hearth::stacks
