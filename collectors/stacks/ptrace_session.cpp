#include "collectors/stacks/ptrace_session.h"

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
#include <string>
#include <thread>
#include <utility>

#include "collectors/proc/threads.h"
#include "collectors/stacks/shutdown.h"
#include "common/check.h"

namespace hearth::stacks {
namespace {

constexpr int kMaxAttachScans = 16;
constexpr uint64_t kShortPollPhaseNs = 2'000'000;  // poll every kShortPollNs for this long,
constexpr long kShortPollNs = 10'000;              // then every kLongPollNs
constexpr long kLongPollNs = 100'000;
constexpr unsigned long kTimerSlackNs = 1000;
constexpr std::chrono::microseconds kServicePeriod{1000};
// One-at-a-time walks (stop_each, detach): a thread not stopped after kWalkTurnNs stays
// interrupted while the next one's turn comes, so a thread slow to stop delays no other.
constexpr uint64_t kWalkTurnNs = 1'000'000;
// The longest wait for a runnable thread, ns: stop_each, detach. Only that thread waits.
constexpr uint64_t kEachLimitNs = 1'000'000'000;
constexpr uint64_t kDetachLimitNs = 2'000'000'000;
// All-stop rounds: threads not stopped this long after the interrupts have their /proc state
// read (and again every as long); those in uninterruptible sleep are skipped at once instead
// of at the timeout.
constexpr uint64_t kAllStopDCheckNs = 250'000;
// All-stop rounds: the longest wait for a runnable thread (no CPU yet), ns. The others stay
// stopped meanwhile: the price of a consistent snapshot on a saturated host.
constexpr uint64_t kAllStopRunnableLimitNs = 1'000'000'000;

// --- Thin layer: raw results; callers copy errno on the next line. ---

long pt_seize(pid_t tid, unsigned long options) {
  return ::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(options));
}
long pt_interrupt(pid_t tid) {
  return ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
}
long pt_cont(pid_t tid, int sig) {
  return ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<uintptr_t>(sig)));
}
long pt_listen(pid_t tid) {
  return ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
}
long pt_detach(pid_t tid, int sig) {
  return ::ptrace(PTRACE_DETACH, tid, nullptr,
                  reinterpret_cast<void*>(static_cast<uintptr_t>(sig)));
}
long pt_getregs(pid_t tid, user_regs_struct* regs) {
  iovec iov = {regs, sizeof *regs};
  return ::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &iov);
}
pid_t wait_nohang(pid_t tid, int* status) {
  return ::waitpid(tid, status, WNOHANG | __WALL);
}
// Which child or tracee has something to report, without reaping it.
int peek_any(siginfo_t* info) {
  return ::waitid(P_ALL, 0, info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL);
}

// The calling thread's scheduling policy (with SCHED_RESET_ON_FORK), or -1.
int get_policy() {
  return ::sched_getscheduler(0);
}
int set_policy(int policy, int priority) {
  sched_param param = {};
  param.sched_priority = priority;
  return ::sched_setscheduler(0, policy, &param);
}

uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Waiting for threads to stop. Sleep rather than spin or sched_yield(): the tracees often need
// our CPU to reach their stop (a woken sleeper, a preempted spinner), and a yielding or
// spinning tracer keeps it until the next scheduler tick (4 ms here). Short sleeps first, then
// longer ones for threads that are slow to stop (D sleep). attach() lowers the timer slack so
// the short sleeps are short.
void backoff(uint64_t waited_ns) {
  timespec ts = {0, waited_ns < kShortPollPhaseNs ? kShortPollNs : kLongPollNs};
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

Stop classify(int status, int* sig) {
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

std::string describe_process(pid_t pid) {
  auto comm = proc::thread_name(pid, pid);
  return "PID " + std::to_string(pid) + (comm ? " (" + *comm + ")" : "");
}

std::string permission_hint() {
  auto scope = proc::read_file("/proc/sys/kernel/yama/ptrace_scope");
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

PtraceSession::PtraceSession(PtraceSession&& other) noexcept {
  *this = std::move(other);
}

PtraceSession& PtraceSession::operator=(PtraceSession&& other) noexcept {
  if (this != &other) {
    (void)detach(kDetachTimeout);
    pid_ = std::exchange(other.pid_, 0);
    start_time_ = other.start_time_;
    tracer_tid_ = other.tracer_tid_;
    realtime_ = other.realtime_;
    exited_ = other.exited_;
    released_ = other.released_;
    exec_pending_ = other.exec_pending_;
    slots_ = std::exchange(other.slots_, {});
    waiting_ = std::exchange(other.waiting_, {});
    counters_ = other.counters_;
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

void PtraceSession::resume(Slot& slot, StopStats& stats, uint64_t sample_start_ns,
                           Release release) {
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
  uint64_t now = now_ns();
  stats.stalls.push_back({slot.tid, now - slot.interrupt_ns});
  stats.total_stall_ns = now - sample_start_ns;
}

// Brackets a stop window: real-time priority on entry (see the header); on exit, also when a
// visit throws, resumes every thread still stopped and restores the priority.
struct PtraceSession::Window {
  Window(PtraceSession& s, StopStats& st, Release r)
      : session(s), stats(st), release(r), restore_policy(s.enter_realtime()), start_ns(now_ns()) {
    stats.realtime = stats.realtime || restore_policy >= 0;
  }
  ~Window() {
    for (Slot& slot : session.slots_) {
      if (slot.state == State::kStopped) session.resume(slot, stats, start_ns, release);
    }
    session.leave_realtime(restore_policy);
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  PtraceSession& session;
  StopStats& stats;
  const Release release;
  const int restore_policy;
  const uint64_t start_ns;
};

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

Result<StopStats> PtraceSession::stop_all(std::chrono::microseconds timeout, const VisitFn& visit,
                                          Release release) {
  check_thread();
  if (released_) return fail("target " + std::to_string(pid_) + " was released");
  RETURN_IF_ERROR(service());  // clear stops raised since the last call, before the clock starts
  StopStats stats = new_stats();
  if (release == Release::kDetach) released_ = true;  // a skipped thread's late stop: detach
  {
    Window window(*this, stats, release);
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = slots_[i];
      if (slot.state == State::kZombie) continue;
      slot.interrupt_ns = now_ns();
      if (pt_interrupt(slot.tid) < 0) {  // ESRCH: gone and reaped already
        slot.state = State::kGone;
        stats.vanished.push_back(slot.tid);
        continue;
      }
      waiting_.push_back(i);
    }
    // Threads that missed the last deadline (still in D sleep, most likely) are polled but not
    // waited for: one stuck thread costs the others one timeout, not one per sample.
    const uint64_t timeout_ns = static_cast<uint64_t>(timeout.count()) * 1000;
    const uint64_t deadline = window.start_ns + timeout_ns;
    const uint64_t runnable_deadline =
        window.start_ns + std::max(timeout_ns, kAllStopRunnableLimitNs);
    bool runnable_only = false;  // past the deadline: waiting for runnable threads only
    uint64_t next_d_check = window.start_ns + kAllStopDCheckNs;
    for (;;) {
      size_t keep = 0, must_wait = 0;
      for (size_t i : waiting_) {
        if (poll_stop(slots_[i], stats)) continue;
        waiting_[keep++] = i;
        must_wait += slots_[i].state != State::kStopPending;
      }
      waiting_.resize(keep);
      uint64_t now = now_ns();
      if (must_wait == 0 || now >= runnable_deadline) break;
      if (!runnable_only && now >= deadline) {
        // Past the timeout, a snapshot still waits for a thread that is merely waiting for a
        // CPU (on a busy host, woken by our interrupt, it may wait tens of ms for one): it
        // stops as soon as it runs. Anything else (D sleep, a stop of someone else's) is given
        // up on now.
        runnable_only = true;
        size_t still = 0;
        for (size_t i : waiting_) {
          Slot& slot = slots_[i];
          if (slot.state != State::kStopPending) {
            auto stat = proc::thread_stat(pid_, slot.tid);
            if (stat && stat->state == 'R') {
              waiting_[still++] = i;
              continue;
            }
            slot.state = State::kStopPending;  // the stop lands later: service() resumes it
            stats.skipped.push_back(slot.tid);
          }
        }
        waiting_.resize(still);
        continue;
      }
      if (now >= next_d_check) {
        // Still not stopped: a thread in uninterruptible sleep (an fsync, a page fault on a
        // slow disk) stops only when the sleep ends, which can take any time. Give up on those
        // now rather than at the deadline: the others are stopped and waiting. Runnable
        // laggards (no CPU yet) are waited for: they stop as soon as they run.
        next_d_check = now + kAllStopDCheckNs;
        size_t still = 0;
        for (size_t i : waiting_) {
          Slot& slot = slots_[i];
          if (slot.state != State::kStopPending) {
            auto stat = proc::thread_stat(pid_, slot.tid);
            if (stat && (stat->state == 'D' || stat->state == 'Z' || stat->state == 'X')) {
              slot.state = State::kStopPending;  // the stop lands later: service() resumes it
              stats.skipped.push_back(slot.tid);
              continue;
            }
          }
          waiting_[still++] = i;
        }
        waiting_.resize(still);
        continue;
      }
      backoff(now - window.start_ns);
    }
    for (size_t i : waiting_) {
      slots_[i].state = State::kStopPending;  // the stop lands later: service() resumes it
      stats.skipped.push_back(slots_[i].tid);
    }
    for (Slot& slot : slots_) {
      if (slot.state == State::kStopped && slot.visit) visit(slot.tid, slot.regs);
    }
  }  // resumes (or detaches) all
  finish_window(stats);
  if (exited_) return exited_error();
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
          resume(slot, stats, slot.interrupt_ns, release);
        }
        continue;
      }
      uint64_t waited = now_ns() - slot.interrupt_ns;
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
      resume(slot, stats, slot.interrupt_ns, release);
      continue;
    }
    slot.d_checked = false;
    slot.interrupt_ns = now_ns();
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
      uint64_t waited = now_ns() - slot.interrupt_ns;
      if (!mine || waited >= kWalkTurnNs) break;
      backoff(waited);
    }
  }
  const uint64_t tail_start = now_ns();
  while (!waiting_.empty()) {
    backoff(now_ns() - tail_start);
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
    Window window(*this, stats, release);
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
    Window window(*this, stats, Release::kDetach);
    walk_each({.d_check_ns = timeout_ns, .limit_ns = std::max(timeout_ns, kDetachLimitNs)}, nullptr,
              Release::kDetach, stats);
    for (Slot& slot : slots_) gave_up_now |= slot.state == State::kStopPending && !slot.poll_only;
    // Threads given up on stop when they wake or get a CPU: keep detaching them as they land
    // for a while, rather than leave them stopped until someone looks.
    const uint64_t start = now_ns();
    while (gave_up_now && now_ns() - start < timeout_ns) {
      if (!service() || slots_.empty()) break;
      backoff(now_ns() - start);
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

}  // namespace hearth::stacks
