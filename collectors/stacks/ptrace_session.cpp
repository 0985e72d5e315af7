// PtraceSession: attaching, serving the stops the kernel raises between samples, letting go.
// The stop windows themselves are in ptrace_stop_window.cpp; what both share, ptrace_internal.h.
#include "collectors/stacks/ptrace_session.h"

#include "collectors/stacks/ptrace_internal.h"

#include <elf.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "collectors/proc/threads.h"
#include "common/check.h"
#include "common/file_io.h"
#include "common/shutdown.h"

namespace hearth::stacks {
using namespace ptrace_internal;
namespace {
std::string describe_process(pid_t pid) {
  auto comm = proc::thread_name(pid, pid);
  return "PID " + std::to_string(pid) + (comm ? " (" + *comm + ")" : "");
}

std::string permission_hint() {
  auto scope = read_file("/proc/sys/kernel/yama/ptrace_scope");
  std::string value = scope ? scope->substr(0, scope->find('\n')) : "";
  if (value == "3") {
    return "ptrace is disabled by /proc/sys/kernel/yama/ptrace_scope=3 (only a reboot lowers it)";
  }
  std::string hint = "run as root or grant CAP_SYS_PTRACE";
  if (!value.empty() && value != "0") {
    hint += ", or lower /proc/sys/kernel/yama/ptrace_scope (now " + value + ")";
  }
  return hint;
}

// Kernel threads have no executable; reading the link fails with ENOENT.
bool is_kernel_thread(pid_t pid) {
  char buffer[16];
  std::string link = "/proc/" + std::to_string(pid) + "/exe";
  ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer);
  int e = errno;
  return n < 0 && e == ENOENT;
}

}  // namespace

// --- Attaching ---

PtraceSession::PtraceSession(pid_t pid, uint64_t start_time)
    : pid_(pid), start_time_(start_time), tracer_tid_(::gettid()) {
  // Our 10 µs polls would otherwise sleep 50 µs more (the default slack). Per thread; harmless
  // to the rest of the program. Best effort: without it the polls are only slower.
  (void)::prctl(PR_SET_TIMERSLACK, kTimerSlackNs, 0, 0, 0);
}

// A moved-from session holds no tracees (its slots are moved away): its detach() does nothing.
PtraceSession::PtraceSession(PtraceSession&&) noexcept = default;

PtraceSession& PtraceSession::operator=(PtraceSession&& other) noexcept {
  if (this != &other) {
    std::destroy_at(this);  // detaches
    std::construct_at(this, std::move(other));
  }
  return *this;
}

PtraceSession::~PtraceSession() {
  (void)detach(kDetachTimeout);
}

void PtraceSession::check_thread() const {
  // ptrace requests from any other thread fail with ESRCH: a caller bug, not a target problem.
  HEARTH_CHECK(slots_.empty() || ::gettid() == tracer_tid_);
}

int PtraceSession::enter_realtime() {
  if (!realtime_) return -1;
  // Only from SCHED_OTHER: a caller that chose another policy (batch, idle, real-time) keeps it.
  int policy = get_policy();
  if (policy < 0 || (policy & ~SCHED_RESET_ON_FORK) != SCHED_OTHER) return -1;
  if (set_policy(SCHED_FIFO | SCHED_RESET_ON_FORK, 1) != 0) {
    int e = errno;
    if (e == EPERM) realtime_ = false;  // not permitted (no CAP_SYS_NICE): don't ask again
    return -1;
  }
  return policy;
}

void PtraceSession::leave_realtime(int policy) {
  if (policy >= 0) (void)set_policy(policy, 0);
}

Result<PtraceSession> PtraceSession::attach(pid_t pid, const AttachOptions& options) {
  std::string what = "cannot attach to " + std::to_string(pid);
  if (pid <= 0) return fail(what + ": not a process id");
  if (pid == ::getpid()) return fail(what + ": that is hearth itself");
  auto start = proc::process_start_time(pid);
  if (!start) {
    int e = start.error().errnum;
    if (e == ENOENT || e == ESRCH) return fail(what + ": no such process", ESRCH);
    return fail(what + ": " + start.error().message, e);
  }
  auto leader = proc::thread_stat(pid, pid);
  auto tids = proc::list_threads(pid);
  if (leader && (leader->state == 'Z' || leader->state == 'X') && tids && tids->size() <= 1) {
    return fail(what + ": it is a zombie (it exited; its parent, PID " +
                    std::to_string(leader->ppid) + ", has not reaped it yet)",
                ESRCH);
  }
  if (auto tracer = proc::tracer_pid(pid, pid); tracer && *tracer != 0) {
    return fail(std::to_string(pid) + " is already traced by " + describe_process(*tracer) +
                    " — detach it first",
                EPERM);
  }

  // From here on, the session's destructor lets go of whatever was seized if we fail.
  PtraceSession session(pid, *start);
  session.realtime_ = options.realtime_windows;
  for (int scan = 0; scan < kMaxAttachScans; ++scan) {
    auto now_tids = proc::list_threads(pid);
    if (!now_tids) return fail(what + ": no such process (it exited)", ESRCH);
    size_t added = 0;
    RETURN_IF_ERROR(session.seize_new(*now_tids, /*at_attach=*/true, &added));
    if (added == 0) break;
  }
  auto start_again = proc::process_start_time(pid);
  if (session.slots_.empty() || !start_again || *start_again != *start) {
    return fail(what + ": no such process (it exited while we attached)", ESRCH);
  }
  session.waiting_.reserve(session.slots_.size());
  return session;
}

Result<PtraceSession> PtraceSession::attach_threads(pid_t pid, const std::vector<pid_t>& tids,
                                                    const AttachOptions& options) {
  auto start = proc::process_start_time(pid);
  if (!start) return fail("cannot attach to " + std::to_string(pid) + ": no such process", ESRCH);
  PtraceSession session(pid, *start);
  session.realtime_ = options.realtime_windows;
  size_t added = 0;
  // Not at attach: a thread that is gone or that a debugger holds is left out, not an error.
  RETURN_IF_ERROR(session.seize_new(tids, /*at_attach=*/false, &added));
  session.waiting_.reserve(session.slots_.size());
  return session;
}

Result<void> PtraceSession::seize_new(const std::vector<pid_t>& tids, bool at_attach,
                                      size_t* added) {
  // slots_ stays sorted up to BEFORE while new ones are appended; TIDS is sorted and unique.
  const size_t before = slots_.size();
  auto by_tid = [](const Slot& s, pid_t t) { return s.tid < t; };
  for (pid_t tid : tids) {
    auto it = std::lower_bound(slots_.begin(), slots_.begin() + before, tid, by_tid);
    if (it != slots_.begin() + before && it->tid == tid) continue;
    long r = pt_seize(tid, PTRACE_O_TRACEEXEC);
    int e = errno;
    if (r == 0) {
      slots_.push_back(Slot{.tid = tid});
      ++counters_.threads_seized;
      continue;
    }
    if (e == ESRCH) continue;  // exited since the scan
    std::string what = "cannot attach to " + std::to_string(pid_);
    if (e == EPERM) {
      // Exiting and zombie threads refuse attachment: nothing to sample there.
      auto stat = proc::thread_stat(pid_, tid);
      if (!stat || stat->state == 'Z' || stat->state == 'X') continue;
      auto tracer = proc::tracer_pid(pid_, tid);
      if (!tracer) continue;
      if (!at_attach) continue;  // a debugger took this new thread: sample the others
      if (*tracer != 0) {
        std::string who = tid == pid_
                              ? std::to_string(pid_)
                              : "thread " + std::to_string(tid) + " of " + std::to_string(pid_);
        return fail(
            who + " is already traced by " + describe_process(*tracer) + " — detach it first",
            EPERM);
      }
      if (is_kernel_thread(pid_)) {
        return fail(what + ": it is a kernel thread, with no user stack to sample", EPERM);
      }
      return fail(what + ": " + std::strerror(e) + " — " + permission_hint(), e);
    }
    if (!at_attach) continue;
    return fail_errno(what + " (thread " + std::to_string(tid) + ")", e);
  }
  *added = slots_.size() - before;
  std::sort(slots_.begin(), slots_.end(),
            [](const Slot& a, const Slot& b) { return a.tid < b.tid; });
  return {};
}

PtraceSession::Slot* PtraceSession::find(pid_t tid) {
  auto it = std::lower_bound(slots_.begin(), slots_.end(), tid,
                             [](const Slot& s, pid_t t) { return s.tid < t; });
  return it != slots_.end() && it->tid == tid ? &*it : nullptr;
}

std::vector<pid_t> PtraceSession::threads() const {
  std::vector<pid_t> out;
  out.reserve(slots_.size());
  for (const Slot& s : slots_) {
    if (s.state != State::kZombie && s.state != State::kGone) out.push_back(s.tid);
  }
  return out;
}

std::unexpected<Error> PtraceSession::exited_error() const {
  return fail("target " + std::to_string(pid_) + " exited", ESRCH);
}

Result<size_t> PtraceSession::refresh_threads() {
  check_thread();
  if (exited_) return exited_error();
  if (released_) return fail("target " + std::to_string(pid_) + " was released");
  auto tids = proc::list_threads(pid_);
  auto start = proc::process_start_time(pid_);
  if (!tids || !start || *start != start_time_) {
    exited_ = true;
    return fail("target " + std::to_string(pid_) + " exited", ESRCH);
  }
  // Threads no longer listed were reaped (by us, or released by an exec): forget them.
  std::erase_if(slots_, [&](const Slot& s) {
    return !std::binary_search(tids->begin(), tids->end(), s.tid);
  });
  size_t added = 0;
  RETURN_IF_ERROR(seize_new(*tids, /*at_attach=*/false, &added));
  waiting_.reserve(slots_.size());
  return added;
}

// --- Between samples ---

void PtraceSession::take_event(Slot& slot, int status) {
  int sig = 0;
  long r = 0;
  Stop stop = classify(status, &sig);
  if (released_ && stop != Stop::kExited) {
    // A stop that landed after a release (a D sleeper woke): let it go. A caught signal goes
    // with the detach; a group stop stays in force after it.
    (void)pt_detach(slot.tid, stop == Stop::kSignal ? sig : 0);
    slot.state = State::kGone;
    return;
  }
  switch (stop) {
    case Stop::kExited:
      slot.state = State::kGone;
      ++counters_.threads_exited;
      if (slot.tid == pid_) exited_ = true;  // the leader is reaped last: the process is gone
      return;
    case Stop::kGroupStop:
      // A job-control stop (SIGSTOP, SIGTSTP, …): keep the thread stopped as it would be
      // untraced, while still reporting the SIGCONT that ends it.
      r = pt_listen(slot.tid);
      ++counters_.group_stops;
      slot.state = State::kListening;
      break;
    case Stop::kSignal:
      r = pt_cont(slot.tid, sig);  // deliver the signal as if we were not here
      ++counters_.signals_reinjected;
      slot.state = State::kRunning;
      break;
    case Stop::kExec:
      ++counters_.execs;
      exec_pending_ = true;
      r = pt_cont(slot.tid, 0);
      slot.state = State::kRunning;
      break;
    case Stop::kInterrupt:  // an interrupt that landed late (D sleep), or group stop ended
    case Stop::kOther:
      r = pt_cont(slot.tid, 0);
      slot.state = State::kRunning;
      break;
  }
  // ESRCH: killed while stopped (SIGKILL wakes it); its exit is reaped by a later call.
  (void)r;
}

Result<void> PtraceSession::service() {
  check_thread();
  if (exited_) return exited_error();
  if (released_ && slots_.empty()) return {};
  bool scan_all = false;
  // Each pass reaps one event; bound the passes so a storm of signals cannot keep us here.
  for (size_t pass = 0; pass < 2 * slots_.size() + 16; ++pass) {
    siginfo_t info = {};
    int r = peek_any(&info);
    int e = errno;
    if (r < 0) {
      if (e == EINTR) continue;
      // ECHILD: no child and no tracee left: every thread of ours is gone.
      if (e == ECHILD) exited_ = true;
      break;
    }
    if (info.si_pid == 0) break;  // nothing to report
    Slot* slot = find(info.si_pid);
    if (slot == nullptr || slot->state == State::kGone) {
      // A child of the embedding program, not ours: it hides our events from the peek, so
      // look at each of our threads instead.
      scan_all = true;
      break;
    }
    int status = 0;
    pid_t w = wait_nohang(slot->tid, &status);
    e = errno;
    if (w < 0 && e == ECHILD) slot->state = State::kGone;
    if (w <= 0) continue;
    take_event(*slot, status);
  }
  if (scan_all) {
    for (Slot& slot : slots_) {
      if (slot.state == State::kGone) continue;
      int status = 0;
      if (wait_nohang(slot.tid, &status) > 0) take_event(slot, status);
    }
  }
  std::erase_if(slots_, [](const Slot& s) { return s.state == State::kGone; });
  if (slots_.empty() && !released_) exited_ = true;
  if (exited_) return exited_error();
  return {};
}

Result<void> PtraceSession::idle_for(std::chrono::microseconds duration) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  for (;;) {
    RETURN_IF_ERROR(service());
    if (shutdown_requested()) return {};
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return {};
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(deadline - now, kServicePeriod));
  }
}

// --- Letting go ---

Result<void> PtraceSession::detach(std::chrono::milliseconds timeout) {
  // Zombies need no release.
  std::erase_if(slots_,
                [](const Slot& s) { return s.state == State::kGone || s.state == State::kZombie; });
  if (slots_.empty()) return {};
  check_thread();
  // Given up on by an earlier detach(): poll them, don't wait again.
  for (Slot& slot : slots_) slot.poll_only = released_ && slot.state == State::kStopPending;
  released_ = true;
  const uint64_t timeout_ns = static_cast<uint64_t>(timeout.count()) * 1'000'000;
  bool gave_up_now = false;
  StopStats stats = new_stats();  // bookkeeping only
  {
    StopWindow window(*this, stats, Release::kDetach);
    walk_each({.d_check_ns = timeout_ns, .limit_ns = std::max(timeout_ns, kDetachLimitNs)}, nullptr,
              Release::kDetach, stats);
    for (Slot& slot : slots_) gave_up_now |= slot.state == State::kStopPending && !slot.poll_only;
    // Threads given up on stop when they wake or get a CPU: keep detaching them as they land
    // for a while, rather than leave them stopped until someone looks.
    const uint64_t start = monotonic_ns();
    while (gave_up_now && monotonic_ns() - start < timeout_ns) {
      if (!service() || slots_.empty()) break;
      backoff(monotonic_ns() - start);
    }
  }
  std::erase_if(slots_,
                [](const Slot& s) { return s.state == State::kGone || s.state == State::kZombie; });
  if (exited_ || slots_.empty()) return {};
  std::string sleeping, runnable;
  for (Slot& slot : slots_) {
    slot.state = State::kStopPending;
    auto stat = proc::thread_stat(pid_, slot.tid);
    std::string& list = stat && stat->state == 'D' ? sleeping : runnable;
    list += (list.empty() ? "" : ", ") + std::to_string(slot.tid);
  }
  std::string why;
  if (!sleeping.empty()) {
    why = "thread" + std::string(sleeping.find(',') != std::string::npos ? "s " : " ") + sleeping +
          " in uninterruptible sleep (D)";
  }
  if (!runnable.empty()) {
    why += (why.empty() ? "thread" : "; thread") +
           std::string(runnable.find(',') != std::string::npos ? "s " : " ") + runnable +
           " not stopped after " +
           std::to_string(std::max(timeout_ns, kDetachLimitNs) / 1'000'000) +
           " ms (no CPU to run on?)";
  }
  return fail("could not detach all of " + std::to_string(pid_) + ": " + why +
                  "; still traced, with a stop pending: hearth detaches each when it stops, or "
                  "the kernel does when hearth exits",
              EBUSY);
}

char state_at_stop(const user_regs_struct& regs, char before) {
  // include/linux/errno.h (kernel-internal, never seen by a program that is not stopped)
  constexpr long long kRestartSys = 512, kRestartNoIntr = 513, kRestartNoHand = 514,
                      kRestartBlock = 516;
  if (static_cast<long long>(regs.orig_rax) < 0) return 'R';  // not in a system call
  const auto ret = -static_cast<long long>(regs.rax);
  if (ret == kRestartSys || ret == kRestartNoIntr || ret == kRestartNoHand || ret == kRestartBlock)
    return 'S';
  return before == 'S' || before == 'D' ? before : 'R';
}

char PtraceSession::sampled_state(pid_t tid) {
  Slot* slot = find(tid);
  return slot != nullptr ? state_at_stop(slot->regs, slot->state_before) : '?';
}

void PtraceSession::note_state(Slot& slot) {
  auto stat = proc::thread_stat(pid_, slot.tid);
  slot.state_before = stat ? stat->state : '?';
}

}  // namespace hearth::stacks
