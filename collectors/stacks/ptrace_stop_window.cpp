// The stop windows of PtraceSession: what every window does (interrupt, wait, registers, resume,
// and what they cost) and one thread at a time (stop_each, and the walk detach() shares). The
// all-stop window (stop_all) is in ptrace_all_stop.cpp.
#include <algorithm>
#include <cerrno>

#include "collectors/proc/threads.h"
#include "collectors/stacks/ptrace_internal.h"
#include "collectors/stacks/ptrace_session.h"

namespace hearth::stacks {
using namespace ptrace_internal;

// --- Stop windows ---

bool PtraceSession::take_stop(Slot& slot, int status, StopStats& stats) {
  int sig = 0;
  switch (classify(status, &sig)) {
    case Stop::kExited:
      slot.state = State::kGone;
      ++counters_.threads_exited;
      stats.vanished.push_back(slot.tid);
      if (slot.tid == pid_) exited_ = true;
      return true;
    case Stop::kSignal:
      // The signal-delivery-stop may have consumed our interrupt: re-arm it, deliver the signal,
      // and keep waiting. The handler runs now; the thread stops right after.
      (void)pt_interrupt(slot.tid);
      (void)pt_cont(slot.tid, sig);
      ++stats.signals_reinjected;
      ++counters_.signals_reinjected;
      return false;
    case Stop::kGroupStop:
      slot.listen_on_resume = true;
      slot.visit = true;
      ++stats.group_stopped;
      break;
    case Stop::kExec:
      // New program: the caller's maps and symbols are stale, so don't visit it.
      slot.listen_on_resume = false;
      slot.visit = false;
      stats.exec_seen = true;
      ++counters_.execs;
      break;
    case Stop::kInterrupt:
    case Stop::kOther:
      slot.listen_on_resume = false;
      slot.visit = true;
      break;
  }
  slot.state = State::kStopped;
  if (slot.visit) {
    long r = pt_getregs(slot.tid, &slot.regs);
    // Fails only if the thread was killed while stopped; resume() then fails the same way.
    if (r < 0) slot.visit = false;
  }
  return true;
}

bool PtraceSession::poll_stop(Slot& slot, StopStats& stats) {
  int status = 0;
  pid_t r = wait_nohang(slot.tid, &status);
  int e = errno;
  if (r == 0 || (r < 0 && e == EINTR)) return false;
  if (r < 0) {  // ECHILD: not ours any more (reaped, or its tid was taken over by an exec)
    slot.state = State::kGone;
    stats.vanished.push_back(slot.tid);
    return true;
  }
  return take_stop(slot, status, stats);
}

void PtraceSession::resume(Slot& slot, StopStats& stats, Release release) {
  if (release == Release::kDetach) {
    // A group stop stays in force after the detach, as it would untraced. ESRCH: killed while
    // stopped; nothing left to release.
    (void)pt_detach(slot.tid, 0);
    slot.state = State::kGone;
  } else {
    long r = slot.listen_on_resume ? pt_listen(slot.tid) : pt_cont(slot.tid, 0);
    // ESRCH: killed while stopped; a later service() reaps its exit.
    slot.state = (r == 0 && slot.listen_on_resume) ? State::kListening : State::kRunning;
  }
  stats.stalls.push_back({slot.tid, monotonic_ns() - slot.interrupt_ns});
}

void PtraceSession::finish_window(StopStats& stats) {
  // After a release, zombies need nothing more from us.
  std::erase_if(slots_, [this](const Slot& s) {
    return s.state == State::kGone || (released_ && s.state == State::kZombie);
  });
  for (pid_t tid : stats.skipped) {
    // A leader that exited before its threads cannot stop or be reaped yet: stop asking.
    auto stat = proc::thread_stat(pid_, tid);
    if (stat && (stat->state == 'Z' || stat->state == 'X')) {
      if (Slot* slot = find(tid)) slot->state = State::kZombie;
    }
  }
  if (slots_.empty() && !released_) exited_ = true;
  if (exec_pending_) stats.exec_seen = true;
  exec_pending_ = false;
}

StopStats PtraceSession::new_stats() {
  StopStats stats;
  stats.stalls.reserve(slots_.size());
  stats.skipped.reserve(slots_.size());
  stats.vanished.reserve(slots_.size());
  waiting_.clear();
  waiting_.reserve(slots_.size());
  return stats;
}

void PtraceSession::walk_each(const WalkBounds& bounds, const VisitFn* visit, Release release,
                              StopStats& stats) {
  waiting_.clear();  // interrupted, stop not seen yet (kAwaited), in interrupt order
  // Polls every awaited thread once: settles those that stopped or vanished, gives up on those
  // past their bounds.
  auto poll_awaited = [&] {
    size_t keep = 0;
    for (size_t i : waiting_) {
      Slot& slot = slots_[i];
      if (poll_stop(slot, stats)) {
        if (slot.state == State::kStopped) {
          if (visit != nullptr && slot.visit) (*visit)(slot.tid, slot.regs);
          resume(slot, stats, release);
        }
        continue;
      }
      uint64_t waited = monotonic_ns() - slot.interrupt_ns;
      bool give_up = slot.poll_only || waited >= bounds.limit_ns;
      if (!give_up && waited >= bounds.d_check_ns && !slot.d_checked) {
        // Uninterruptible sleep can last any time: don't wait for it. A zombie leader (its
        // threads live on) cannot stop at all. Anything else is runnable: it stops when it
        // gets a CPU, and waiting for it stalls no other thread.
        slot.d_checked = true;
        auto stat = proc::thread_stat(pid_, slot.tid);
        give_up = stat && (stat->state == 'D' || stat->state == 'Z' || stat->state == 'X');
      }
      if (give_up) {
        slot.state = State::kStopPending;  // the stop lands later: service() handles it
        stats.skipped.push_back(slot.tid);
        continue;
      }
      waiting_[keep++] = i;
    }
    waiting_.resize(keep);
  };
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.state == State::kZombie || slot.state == State::kGone) continue;
    if (slot.state == State::kStopped) {  // only if a visit threw: it is ours, let it go
      resume(slot, stats, release);
      continue;
    }
    slot.d_checked = false;
    note_state(slot);  // before its interrupt: it is not stopped yet, so no one waits
    slot.interrupt_ns = monotonic_ns();
    if (pt_interrupt(slot.tid) < 0) {  // ESRCH: gone and reaped already
      slot.state = State::kGone;
      stats.vanished.push_back(slot.tid);
      continue;
    }
    slot.state = State::kAwaited;
    waiting_.push_back(i);
    // Its turn: most threads stop within microseconds. Then the next one's, while this one
    // (if still running) stays awaited. Every poll also settles the earlier awaited threads.
    for (;;) {
      poll_awaited();
      bool mine = !waiting_.empty() && waiting_.back() == i;  // the order is kept
      uint64_t waited = monotonic_ns() - slot.interrupt_ns;
      if (!mine || waited >= kWalkTurnNs) break;
      backoff(waited);
    }
  }
  const uint64_t tail_start = monotonic_ns();
  while (!waiting_.empty()) {
    backoff(monotonic_ns() - tail_start);
    poll_awaited();
  }
}

Result<StopStats> PtraceSession::stop_each(std::chrono::microseconds timeout, const VisitFn& visit,
                                           Release release) {
  check_thread();
  if (released_) return fail("target " + std::to_string(pid_) + " was released");
  RETURN_IF_ERROR(service());
  StopStats stats = new_stats();
  if (release == Release::kDetach) released_ = true;
  for (Slot& slot : slots_) {
    // As in stop_all, a thread that missed the last deadline gets one poll, no wait.
    slot.poll_only = slot.state == State::kStopPending || slot.state == State::kAwaited;
  }
  const uint64_t timeout_ns = static_cast<uint64_t>(timeout.count()) * 1000;
  {
    // Real-time for the whole walk: a stopped thread must not wait for us to get a CPU back.
    // Between stops we sleep, so the target runs at its own priority.
    StopWindow window(*this, stats, release);
    walk_each({.d_check_ns = timeout_ns, .limit_ns = std::max(timeout_ns, kEachLimitNs)}, &visit,
              release, stats);
  }
  // Threads stop one at a time: the sample's stall is its most stalled thread's.
  stats.total_stall_ns = 0;
  for (const ThreadStall& t : stats.stalls) {
    stats.total_stall_ns = std::max(stats.total_stall_ns, t.stall_ns);
  }
  finish_window(stats);
  if (exited_) return exited_error();
  return stats;
}

}  // namespace hearth::stacks
