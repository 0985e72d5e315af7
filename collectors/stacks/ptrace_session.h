// Attach, stop, resume: the part of the stack sampler that touches the target's threads.
//
// PTRACE_SEIZE attaches without stopping anything; a sample is PTRACE_INTERRUPT of every thread
// first, then bounded waits, one register read per thread, the caller's visit, and resume.
//
// New threads are found by re-scanning /proc/PID/task (refresh_threads(), before each sample,
// outside the stop window), not by PTRACE_O_TRACECLONE: with TRACECLONE every pthread_create
// in the target would stop the creating and the created thread until we reap the clone event,
// putting our polling latency into the target's thread creation. Re-scanning costs one readdir
// per sample and misses a thread born after the scan until the next sample. Only
// PTRACE_O_TRACEEXEC is set, so that an execve (new maps, new symbols) is reported.
//
// Contracts
// - Thread affinity: the kernel ties tracees to the tracer *thread*. attach(), every method and
//   the destructor must run on the same thread (checked; a violation is a bug).
// - Between samples the target runs freely, except for ptrace-stops the kernel raises by itself
//   and parks until we look: a signal sent to the target (signal-delivery-stop), a job-control
//   stop, an execve, a thread's exit (a traced thread stays a zombie until its tracer reaps it,
//   and an execve in a multi-threaded target waits for those reaps). service() handles them:
//   re-injects the signal, honours the group stop with PTRACE_LISTEN, reaps the exit. idle_for()
//   sleeps and calls service() every millisecond. A sampler that sleeps between samples must
//   use idle_for(), or signals to the target wait for the next sample.
// - Release: the destructor (or detach()) lets go of every thread, one at a time, each only for
//   its own stop; or the last sample does it (Release::kDetach), with no stop of its own. Threads
//   that cannot stop (uninterruptible sleep) cannot be detached; their interrupt stays pending,
//   they stop when they wake, and service() (or a later detach()) detaches them then. Those
//   still pending when this thread exits are released by the kernel (also on SIGKILL: a
//   tracer's exit clears pending interrupts and wakes its stopped tracees). After a release the
//   session samples no more: refresh_threads() and the stop windows fail.
// - Waits are bounded by the caller's timeout; no call blocks forever. Waiting polls waitpid
//   with 10 µs sleeps; attach() lowers the calling thread's timer slack to 1 µs
//   (PR_SET_TIMERSLACK) so that these sleeps are short.
// - Stop windows run at SCHED_FIFO priority 1 when permitted (AttachOptions): resuming a
//   thread wakes it, and a woken thread would preempt a normal-priority tracer for a whole
//   scheduler tick (4 ms), with the rest of the target still stopped. Measured on 2 vCPUs with
//   20 threads: ~4 ms per sample without, ~0.1 ms with. The priority is dropped at the end of
//   each window; SCHED_RESET_ON_FORK keeps it from leaking into children.
// - A visit that throws still resumes every thread (and restores the priority) on its way out.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/result.h"

namespace hearth::stacks {

struct ThreadStall {
  pid_t tid = 0;
  uint64_t stall_ns = 0;  // from this thread's PTRACE_INTERRUPT to its resume
};

// A thread stop_all took outside the instant: alone, when its stop landed.
struct AloneThread {
  pid_t tid = 0;
  uint64_t after_ns = 0;  // from the instant's release (its last resume) to this thread's stop
};

// One sample's cost to the target.
struct StopStats {
  std::vector<ThreadStall> stalls;  // one per thread stopped and resumed, in resume order
  // The sample's stall. stop_all: the instant's window, first interrupt to the last resume of
  // the threads stopped together (each of them waits for the slowest of them); a thread taken
  // alone afterwards holds no other thread, its own stall is in STALLS. stop_each: the longest
  // per-thread stall (threads stop one at a time; the walk's length is no thread's stall).
  uint64_t total_stall_ns = 0;
  // stop_all: threads not stopped by the instant's deadline (no CPU to stop on yet, most
  // likely), each visited alone as soon as its stop landed, in the order they landed.
  std::vector<AloneThread> alone;
  std::vector<pid_t> skipped;       // not stopped before the deadline (e.g. D sleep): not visited
  std::vector<pid_t> vanished;      // exited meanwhile: dropped from the session
  uint32_t signals_reinjected = 0;  // signals that arrived during the window, delivered on
  uint32_t group_stopped = 0;       // visited threads in a job-control stop (left stopped)
  bool exec_seen = false;           // the target called execve: its maps and symbols changed
  bool realtime = false;            // the window ran at SCHED_FIFO (see the contract above)
};

struct AttachOptions {
  // Raise the calling thread to SCHED_FIFO 1 during stop windows (needs CAP_SYS_NICE or an
  // RLIMIT_RTPRIO; silently off without it).
  bool realtime_windows = true;
};

// Totals over the session's life.
struct SessionCounters {
  uint64_t threads_seized = 0;
  uint64_t threads_exited = 0;
  uint64_t signals_reinjected = 0;
  uint64_t group_stops = 0;  // job-control stops honoured with PTRACE_LISTEN
  uint64_t execs = 0;
};

// How a stop window ends for the threads it stopped.
enum class Release : uint8_t {
  kResume,  // PTRACE_CONT (PTRACE_LISTEN in a group stop): the next sample can follow
  kDetach,  // PTRACE_DETACH: the last sample; releases the target with no stop of its own
};

// Called once per stopped thread while ALL threads of the sample are stopped (stop_all) or
// while this one is (stop_each). REGS is valid only during the call.
using VisitFn = std::function<void(pid_t tid, const user_regs_struct& regs)>;

class PtraceSession {
 public:
  // Seizes every thread of PID, re-scanning /proc/PID/task until a scan finds no new thread
  // (at most 16 scans; a thread churn faster than that is caught by refresh_threads()).
  // Nothing is stopped. Errors are one line with the fix, e.g. "cannot attach to 4242:
  // Operation not permitted — run as root or grant CAP_SYS_PTRACE", "4242 is already traced by
  // PID 77 (gdb) — detach it first", "cannot attach to 4242: no such process".
  static Result<PtraceSession> attach(pid_t pid, const AttachOptions& options = {});
  // Seizes only TIDS (threads of PID, ascending), for a brief stop of a few threads while the
  // others are read without one (the BPF capture). Threads that exited or that another tracer
  // holds are left out (see threads()); refresh_threads() must not be called on such a session.
  static Result<PtraceSession> attach_threads(pid_t pid, const std::vector<pid_t>& tids,
                                              const AttachOptions& options = {});

  PtraceSession(PtraceSession&& other) noexcept;
  // Detaches the tracees held (as the destructor does), then takes OTHER's.
  PtraceSession& operator=(PtraceSession&& other) noexcept;
  PtraceSession(const PtraceSession&) = delete;
  PtraceSession& operator=(const PtraceSession&) = delete;
  // detach(kDetachTimeout), errors ignored (see detach()).
  ~PtraceSession();

  // Seizes threads created since the last scan and drops those that are gone. Returns how many
  // were added. Fails when the target exited or its PID now names another process.
  Result<size_t> refresh_threads();

  // All-stop sample: interrupt every thread (those that were asleep first, the runnable ones
  // last: a thread on a CPU stops at once, so it waits least for the others), wait, read
  // registers, call VISIT for each stopped thread while all of them are stopped, resume them:
  // the instant. The instant waits min(TIMEOUT, 3 ms) after the last interrupt, up to
  // min(TIMEOUT, 6 ms) while more than a few (2, or 1/16 of the threads) are still running: a
  // thread not stopped by then (on a saturated host, one waiting for a CPU to stop on; or in D
  // sleep) is left out of it, so no thread waits for the slowest longer than that. Each thread
  // left out is then taken alone: visited and resumed the moment its stop lands (listed in
  // StopStats::alone), while the others run; a runnable one is waited for up to 1 s from the
  // first interrupt, one found in D sleep (checked every 250 µs) or not stopped at TIMEOUT and
  // not runnable is skipped. One skipped in the previous sample too is only polled, never waited
  // for, so a thread stuck in D sleep costs the others at most one check, not one per sample. No
  // allocation between the first interrupt and the last resume (vectors are sized before); /proc
  // is read only for threads slow to stop. With Release::kDetach the window ends in PTRACE_DETACH
  // (see Release) and skipped threads are detached when their stop lands (see detach()). Fails
  // when the target has exited or was released.
  Result<StopStats> stop_all(std::chrono::microseconds timeout, const VisitFn& visit,
                             Release release = Release::kResume);

  // One thread at a time (eu-stack's method): interrupt, wait, registers, visit, resume (or
  // detach); then the next. The smallest stall per thread, no consistency across threads.
  // Stopping only one thread at a time, a longer wait stalls nobody else: a thread is waited
  // for up to max(TIMEOUT, 1 s) (a runnable thread on a saturated CPU may need 100+ ms to
  // reach its stop), except one found in D sleep after TIMEOUT, which is skipped. A thread not
  // stopped after 1 ms stays interrupted while the walk goes on, and is visited when its stop
  // lands. total_stall_ns is the longest per-thread stall (see StopStats).
  Result<StopStats> stop_each(std::chrono::microseconds timeout, const VisitFn& visit,
                              Release release = Release::kResume);

  // Inside a VISIT: the state of TID at the moment of its sample (see state_at_stop), '?' for a
  // thread this session does not hold.
  char sampled_state(pid_t tid);

  // Handles the stops the kernel raised since the last call (see the contract above). Never
  // blocks. Fails when the target has exited.
  Result<void> service();

  // Sleeps DURATION, calling service() every millisecond; returns early if shutdown was
  // requested (shutdown.h). Fails when the target has exited.
  Result<void> idle_for(std::chrono::microseconds duration);

  // Lets go of every thread, one at a time at real-time priority: interrupt it, PTRACE_DETACH
  // it the moment it stops (with the pending signal, if one was caught; a job-control stop
  // stays in force), so no thread stays stopped while another is awaited. A thread not stopped
  // after 1 ms stays interrupted while the next ones go. One found in D sleep after TIMEOUT is
  // given up on; a runnable one is waited for up to max(TIMEOUT, 2 s). Threads given up on are
  // then serviced for TIMEOUT more (detached as their stop lands) before this fails, naming
  // them and why; they stay traced with their stop pending, and service() or another detach()
  // (which only polls them, never waits) detaches them when it lands (see the contract above).
  Result<void> detach(std::chrono::milliseconds timeout);

  pid_t pid() const { return pid_; }
  // Seized thread ids, ascending (zombie threads excluded).
  std::vector<pid_t> threads() const;
  const SessionCounters& counters() const { return counters_; }
  bool target_exited() const { return exited_; }
  // A release began (detach(), or a window with Release::kDetach): no more samples.
  bool released() const { return released_; }

  static constexpr std::chrono::milliseconds kDetachTimeout{500};

 private:
  enum class State : uint8_t {
    kRunning,      // seized, running (as far as we know)
    kStopped,      // in a ptrace-stop we own, inside stop_all/stop_each
    kListening,    // in a job-control stop, released with PTRACE_LISTEN
    kStopPending,  // interrupted but did not stop in time; the stop lands later
    kAwaited,      // interrupted in a one-at-a-time walk (stop_each, detach), stop not seen yet
    kZombie,       // exited, not yet reapable (a group leader waiting for its threads)
    kGone,         // exited and reaped; removed at the end of the call
  };
  struct Slot {
    pid_t tid = 0;
    State state = State::kRunning;
    bool listen_on_resume = false;  // stopped in a group stop: resume with PTRACE_LISTEN
    bool visit = false;             // visit this one (false for an exec stop)
    bool poll_only = false;         // in a walk: poll once, don't wait (given up on before)
    bool d_checked = false;         // in a walk: its /proc state was read after the timeout
    bool awaited = false;           // stop_all: interrupted, its stop (or exit) not seen yet
    uint64_t interrupt_ns = 0;      // CLOCK_MONOTONIC
    char state_before = '?';        // its /proc state read just before the interrupt
    user_regs_struct regs = {};
  };

  PtraceSession(pid_t pid, uint64_t start_time);
  Result<void> seize_new(const std::vector<pid_t>& tids, bool at_attach, size_t* added);
  Slot* find(pid_t tid);
  // Reads SLOT's /proc state into state_before: just before its interrupt.
  void note_state(Slot& slot);
  // Inside a stop window: polls SLOT once (waitpid WNOHANG) and handles what it reaped. True
  // when settled: stopped for us (registers read) or gone; false to keep waiting.
  bool poll_stop(Slot& slot, StopStats& stats);
  bool take_stop(Slot& slot, int status, StopStats& stats);
  // Outside a stop window (service()): handles one reaped status and lets the thread go on.
  void take_event(Slot& slot, int status);
  struct StopWindow;
  // Bounds of a one-at-a-time walk, ns after each thread's interrupt.
  struct WalkBounds {
    uint64_t d_check_ns;  // not stopped by then: read its state; give up if in D sleep
    uint64_t limit_ns;    // not stopped by then: give up
  };
  // Interrupts each thread in turn and settles it (VISIT if given, then RELEASE) as soon as its
  // stop lands; threads given up on end kStopPending, listed in stats.skipped.
  void walk_each(const WalkBounds& bounds, const VisitFn* visit, Release release, StopStats& stats);
  StopStats new_stats();
  // stop_all: interrupts every thread (asleep first, runnable last) into waiting_.
  void interrupt_all(StopStats& stats);
  // stop_all: settles the awaited threads whose stop or exit landed (poll_stop), appends the
  // stopped ones to landed_ and drops every settled one from waiting_. Asks the kernel what it
  // has to report (waitid WNOWAIT), so a poll in which nothing landed is one system call, not
  // one per awaited thread; polls each awaited thread when that shows something else (a child of
  // the program, a thread not awaited).
  void settle_landed(StopStats& stats);
  // stop_all: gives up on the awaited threads whose /proc state passes GIVE_UP (kStopPending,
  // listed in stats.skipped); the stop lands later, service() resumes it.
  void skip_awaited(StopStats& stats, bool (*give_up)(char state));
  // stop_all: awaited threads still to be waited for (not skipped in an earlier window).
  size_t left_to_wait() const;
  struct AloneBounds {
    uint64_t start_ns;     // the window's start, CLOCK_MONOTONIC
    uint64_t timeout_ns;   // the caller's timeout
    uint64_t released_ns;  // the instant's release, CLOCK_MONOTONIC
  };
  // stop_all, after the instant: waits for the awaited threads within BOUNDS (see stop_all);
  // each one whose stop lands is visited (with VISIT, if given; listed in stats.alone) and
  // released at once. Those given up on end kStopPending, listed in stats.skipped.
  void take_alone(StopStats& stats, const VisitFn* visit, Release release,
                  const AloneBounds& bounds);
  struct Leftover;
  // Ends SLOT's stop (resume, or detach); records its stall.
  void resume(Slot& slot, StopStats& stats, Release release);
  // After a stop window: drops reaped threads, marks skipped zombies, detects the target's end.
  void finish_window(StopStats& stats);
  void check_thread() const;
  // Raises the calling thread to SCHED_FIFO if realtime_; returns the policy to restore, or -1.
  int enter_realtime();
  void leave_realtime(int policy);
  std::unexpected<Error> exited_error() const;

  pid_t pid_ = 0;
  uint64_t start_time_ = 0;  // ticks after boot: detects PID reuse
  pid_t tracer_tid_ = 0;     // the thread that owns the tracees
  bool realtime_ = false;    // AttachOptions::realtime_windows, cleared when not permitted
  bool exited_ = false;
  bool released_ = false;        // see released(); late stops are detached, not resumed
  bool exec_pending_ = false;    // an exec was serviced since the last StopStats
  std::vector<Slot> slots_;      // ascending tid
  std::vector<size_t> waiting_;  // scratch for stop_all: indexes into slots_
  std::vector<size_t> landed_;   // scratch for stop_all: settle_landed()'s stopped threads
  SessionCounters counters_;
};

// The scheduler state of a thread at the moment it was sampled by a ptrace stop, from the
// registers the stop left and BEFORE, its state read from /proc just before the interrupt:
// - in user code: it was running or waiting for a CPU: 'R';
// - in a system call the stop interrupted (the kernel returns one of its restart codes, and
//   restarts the call when the thread runs again): it was waiting in it: 'S';
// - in a system call that completed: woken, it did not get a CPU until after the call's own
//   wakeup (a timer expiring first, on a busy host): what BEFORE says, if it was asleep ('S'
//   or 'D'; the stack is the one it slept with), else 'R'.
// (A thread in uninterruptible sleep does not stop until it leaves it; one that never stops is
// skipped.)
char state_at_stop(const user_regs_struct& regs, char before);

}  // namespace hearth::stacks
