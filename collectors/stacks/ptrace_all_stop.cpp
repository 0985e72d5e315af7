// PtraceSession's all-stop window (stop_all): every thread stopped together for one instant,
// bounded so that no thread waits long for the slowest; the threads left out of the instant are
// taken alone afterwards, each the moment it stops.
#include <algorithm>
#include <cerrno>

#include "collectors/proc/threads.h"
#include "collectors/stacks/ptrace_internal.h"
#include "collectors/stacks/ptrace_session.h"

namespace hearth::stacks {
using namespace ptrace_internal;

namespace {

bool is_runnable(char state) {
  return state == 'R';
}
bool cannot_stop_soon(char state) {
  // Uninterruptible sleep ends when it ends; a zombie leader (its threads live on) never stops.
  return state == 'D' || state == 'Z' || state == 'X';
}
bool not_runnable(char state) {
  // 't': stopped for us already, its stop not reaped yet: not given up on.
  return !is_runnable(state) && state != 't';
}

}  // namespace

// See stop_all: what becomes of the threads of a window on its way out.
struct PtraceSession::Leftover : PtraceSession::AloneBounds {
  Leftover(PtraceSession& s, StopStats& st, Release r, uint64_t start, uint64_t timeout)
      : AloneBounds{.start_ns = start, .timeout_ns = timeout, .released_ns = 0},
        session(s),
        stats(st),
        release(r) {}
  ~Leftover();
  Leftover(const Leftover&) = delete;
  Leftover& operator=(const Leftover&) = delete;

  PtraceSession& session;
  StopStats& stats;
  const Release release;
};

void PtraceSession::interrupt_all(StopStats& stats) {
  // Threads asleep first: each needs a CPU to reach its stop, so it gets the most time. Those
  // that were runnable last: one on a CPU stops within microseconds of its interrupt (and so
  // waits least for the others); one queued for a CPU stops when it gets one, early or not.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = slots_[i];
      if (slot.state == State::kZombie) continue;
      if ((slot.state_before == 'R') != (pass == 1)) continue;
      slot.interrupt_ns = monotonic_ns();
      if (pt_interrupt(slot.tid) < 0) {  // ESRCH: gone and reaped already
        slot.state = State::kGone;
        stats.vanished.push_back(slot.tid);
        continue;
      }
      slot.awaited = true;
      waiting_.push_back(i);
    }
  }
}

void PtraceSession::settle_landed(StopStats& stats) {
  landed_.clear();
  auto settle = [&](Slot& slot) {
    if (!poll_stop(slot, stats)) return;  // not yet, or a signal passed on (it stops after)
    slot.awaited = false;
    if (slot.state == State::kStopped)
      landed_.push_back(static_cast<size_t>(&slot - slots_.data()));
  };
  bool each = false;
  // Each pass settles one event; bounded so that a storm of signals cannot keep us here.
  for (size_t pass = 0; pass <= waiting_.size(); ++pass) {
    siginfo_t info = {};
    int r = peek_own(&info);
    int e = errno;
    if (r < 0 && e == EINTR) continue;
    if (r < 0) {  // ECHILD: nothing left to wait for; let each poll say what became of it
      each = true;
      break;
    }
    if (info.si_pid == 0) break;  // nothing landed
    Slot* slot = find(info.si_pid);
    if (slot == nullptr || !slot->awaited) {
      // A child of the program, or a thread not awaited: it would hide the rest from the peek.
      each = true;
      break;
    }
    settle(*slot);
  }
  if (each) {
    for (size_t i : waiting_) {
      if (slots_[i].awaited) settle(slots_[i]);
    }
  }
  std::erase_if(waiting_, [this](size_t i) { return !slots_[i].awaited; });
}

void PtraceSession::skip_awaited(StopStats& stats, bool (*give_up)(char state)) {
  std::erase_if(waiting_, [&](size_t i) {
    Slot& slot = slots_[i];
    if (slot.state == State::kStopPending) return false;  // polled until the end, as before
    auto stat = proc::thread_stat(pid_, slot.tid);
    if (!stat || !give_up(stat->state)) return false;
    slot.state = State::kStopPending;  // the stop lands later: service() resumes it
    slot.awaited = false;
    stats.skipped.push_back(slot.tid);
    return true;
  });
}

size_t PtraceSession::left_to_wait() const {
  // A thread skipped in an earlier window too (still in D sleep, most likely) is polled, never
  // waited for: one stuck thread costs the others nothing, not one wait per sample.
  return static_cast<size_t>(std::count_if(waiting_.begin(), waiting_.end(), [this](size_t i) {
    return slots_[i].state != State::kStopPending;
  }));
}

void PtraceSession::take_alone(StopStats& stats, const VisitFn* visit, Release release,
                               const AloneBounds& bounds) {
  // A runnable thread (waiting for a CPU: it stops as soon as it gets one) is waited for up to
  // kAllStopRunnableLimitNs; one in D sleep is given up on at once, anything else (a stop of
  // someone else's) at the timeout.
  const uint64_t deadline = bounds.start_ns + bounds.timeout_ns;
  const uint64_t runnable_deadline =
      bounds.start_ns + std::max(bounds.timeout_ns, kAllStopRunnableLimitNs);
  bool runnable_only = false;  // past the timeout: waiting for runnable threads only
  uint64_t next_d_check = monotonic_ns();
  while (left_to_wait() > 0) {
    const uint64_t now = monotonic_ns();
    if (now >= runnable_deadline) break;
    if (!runnable_only && now >= deadline) {
      runnable_only = true;
      skip_awaited(stats, not_runnable);
    } else if (now >= next_d_check) {
      next_d_check = now + kAllStopDCheckNs;
      skip_awaited(stats, cannot_stop_soon);
    }
    all_stop_backoff(now - bounds.start_ns);
    settle_landed(stats);
    for (size_t i : landed_) {
      Slot& slot = slots_[i];
      if (visit != nullptr && slot.visit) {
        stats.alone.push_back({slot.tid, monotonic_ns() - bounds.released_ns});
        (*visit)(slot.tid, slot.regs);
      }
      resume(slot, stats, release);
    }
  }
  for (size_t i : waiting_) {  // still not stopped (or skipped before, and still so)
    slots_[i].awaited = false;
    slots_[i].state = State::kStopPending;  // the stop lands later: service() resumes it
    stats.skipped.push_back(slots_[i].tid);
  }
  waiting_.clear();
}

PtraceSession::Leftover::~Leftover() {
  for (Slot& slot : session.slots_) {
    if (slot.state == State::kStopped) session.resume(slot, stats, release);
  }
  if (released_ns == 0) released_ns = monotonic_ns();
  session.take_alone(stats, nullptr, release, *this);
}

Result<StopStats> PtraceSession::stop_all(std::chrono::microseconds timeout, const VisitFn& visit,
                                          Release release) {
  check_thread();
  if (released_) return fail("target " + std::to_string(pid_) + " was released");
  RETURN_IF_ERROR(service());  // clear stops raised since the last call, before the clock starts
  StopStats stats = new_stats();
  landed_.clear();
  landed_.reserve(slots_.size());
  if (release == Release::kDetach) released_ = true;  // a skipped thread's late stop: detach
  // Each thread's state just before the window (what it was doing when sampled, together with
  // the registers of its stop; and the order of the interrupts): read now, not inside the
  // window, which it would lengthen.
  for (Slot& slot : slots_) {
    slot.awaited = false;
    if (slot.state != State::kZombie) note_state(slot);
  }
  {
    StopWindow window(*this, stats, release);
    interrupt_all(stats);
    const uint64_t timeout_ns = static_cast<uint64_t>(timeout.count()) * 1000;
    // On the way out, also when a visit throws: every thread stopped is resumed and every one
    // still awaited is waited for and resumed (not visited) as its stop lands, within the same
    // bounds, so that none is left stopped by an interrupt nobody looks after.
    Leftover leftover(*this, stats, release, window.start_ns, timeout_ns);
    const uint64_t interrupted = monotonic_ns();
    const uint64_t instant_deadline = interrupted + std::min(timeout_ns, kAllStopInstantNs);
    const uint64_t instant_limit = interrupted + std::min(timeout_ns, kAllStopInstantMaxNs);
    // "A few" threads left out: the instant is still one for nearly all of them.
    const size_t few = std::max<size_t>(kAllStopFewLeft, waiting_.size() / 16);
    // The instant. Every poll sleeps: the threads we woke need CPUs to reach their stops, ours
    // among them (a real-time poller that never sleeps keeps the threads queued on its CPU
    // from running at all).
    for (;;) {
      settle_landed(stats);
      const size_t left = left_to_wait();
      if (left == 0) break;
      const uint64_t now = monotonic_ns();
      if (now >= instant_limit || (now >= instant_deadline && left <= few)) break;
      all_stop_backoff(now - window.start_ns);
    }
    for (Slot& slot : slots_) {
      if (slot.state == State::kStopped && slot.visit) visit(slot.tid, slot.regs);
    }
    for (Slot& slot : slots_) {
      if (slot.state == State::kStopped) resume(slot, stats, release);
    }
    leftover.released_ns = monotonic_ns();
    stats.total_stall_ns = leftover.released_ns - window.start_ns;
    take_alone(stats, &visit, release, leftover);
  }  // resumes (or detaches) any thread still stopped (a visit that threw)
  finish_window(stats);
  if (exited_) return exited_error();
  return stats;
}

}  // namespace hearth::stacks
