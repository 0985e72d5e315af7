// PtraceSession::stop_all's bound: a thread that cannot get a CPU to stop on is left out of the
// instant and taken alone when it stops; the others are released without waiting for it; and
// the target is never left stopped or traced. A thread is held off its CPU by a SCHED_FIFO
// child spinning on that CPU (the only CPU the thread may run on) for a while.
#include "collectors/stacks/ptrace_session.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collectors/proc/threads.h"
#include "tests/integration/cpu_hogs.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/ptrace_test_support.h"
#include "tests/integration/target_process.h"

namespace hearth::stacks {
namespace {

using testing_support::last_cpu;
using testing_support::pin_to;

// A child at SCHED_FIFO 50 spinning on CPU for SPIN, then exiting: no normal thread runs there
// meanwhile. The constructor returns once it spins; the destructor kills and reaps it.
class RealTimeHog {
 public:
  RealTimeHog(int cpu, std::chrono::milliseconds spin) {
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      sched_param param = {};
      param.sched_priority = 50;
      bool ok = pin_to(0, cpu) && sched_setscheduler(0, SCHED_FIFO, &param) == 0;
      (void)!write(ready[1], ok ? "y" : "n", 1);
      if (!ok) _exit(1);
      auto end = std::chrono::steady_clock::now() + spin;
      while (std::chrono::steady_clock::now() < end) asm volatile("");
      _exit(0);
    }
    close(ready[1]);
    char c = 0;
    ok_ = pid_ > 0 && read(ready[0], &c, 1) == 1 && c == 'y';
    close(ready[0]);
  }
  ~RealTimeHog() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  RealTimeHog(const RealTimeHog&) = delete;
  RealTimeHog& operator=(const RealTimeHog&) = delete;
  bool ok() const { return ok_; }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
};

// The target's threads on CPU 0, but HELD on the last CPU; the caller on CPU 0 too for the
// scope (then back to where it was allowed to run).
class Placement {
 public:
  Placement(pid_t pid, pid_t held) {
    saved_ok_ = sched_getaffinity(0, sizeof saved_, &saved_) == 0;
    ok_ = pin_to(0, 0);
    for (pid_t tid : tids_of(pid)) ok_ = pin_to(tid, tid == held ? last_cpu() : 0) && ok_;
  }
  ~Placement() {
    if (saved_ok_) (void)sched_setaffinity(0, sizeof saved_, &saved_);
  }
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;
  bool ok() const { return ok_; }

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
  bool ok_ = false;
};

// A stack_target of THREADS threads, one spinning ("spin-0": the thread to hold), placed as
// Placement says. Fails the test when any of it cannot be done.
struct HeldTarget {
  std::unique_ptr<Target> target;
  pid_t held = 0;
  std::unique_ptr<Placement> placement;  // released before the target
};

void start_held(const std::string& threads, HeldTarget* out) {
  out->target =
      Target::start("stack_target-fp", {"--threads", threads, "--depth", "3", "--spin", "1"});
  ASSERT_TRUE(out->target);
  out->held = find_thread(out->target->pid(), "spin-0");
  ASSERT_NE(out->held, 0);
  out->placement = std::make_unique<Placement>(out->target->pid(), out->held);
  ASSERT_TRUE(out->placement->ok());
}

TEST(PtraceAllStop, AThreadHeldOffItsCpuIsTakenAloneAfterTheOthers) {
  REQUIRE_ROOT();
  if (last_cpu() == 0) GTEST_SKIP() << "needs 2 CPUs: one to hold a thread off";
  HeldTarget h;
  ASSERT_NO_FATAL_FAILURE(start_held("8", &h));
  const std::unique_ptr<Target>& target = h.target;
  const pid_t pid = target->pid(), held = h.held;
  {
    auto session = PtraceSession::attach(pid);
    ASSERT_TRUE(session) << session.error().message;
    const size_t threads = session->threads().size();
    // Held for 300 ms: far past the instant's bound, well within the 1 s a runnable thread is
    // waited for.
    RealTimeHog hog(last_cpu(), std::chrono::milliseconds(300));
    ASSERT_TRUE(hog.ok()) << "could not run a SCHED_FIFO spinner";
    ASSERT_EQ(state_of(pid, held), 'R');  // runnable, not running: the hog has its CPU
    std::vector<pid_t> order;
    std::map<pid_t, size_t> stopped_at_visit;  // threads in 't' while TID was visited
    auto stats = session->stop_all(100ms, [&](pid_t tid, const user_regs_struct& regs) {
      EXPECT_NE(regs.rsp, 0u);
      order.push_back(tid);
      size_t stopped = 0;
      for (pid_t t : tids_of(pid)) stopped += state_of(pid, t) == 't';
      stopped_at_visit[tid] = stopped;
    });
    ASSERT_TRUE(stats) << stats.error().message;
    // Every thread taken once, none skipped; the held one alone, after all the others.
    EXPECT_TRUE(stats->skipped.empty());
    EXPECT_EQ(order.size(), threads);
    for (pid_t tid : session->threads()) {
      EXPECT_EQ(std::count(order.begin(), order.end(), tid), 1) << "tid " << tid;
    }
    ASSERT_FALSE(order.empty());
    EXPECT_EQ(order.back(), held);
    bool held_alone = false;
    for (const AloneThread& t : stats->alone) held_alone |= t.tid == held;
    EXPECT_TRUE(held_alone) << stats->alone.size() << " taken alone, not the held thread";
    // The others were released before it was taken: only it was stopped then.
    EXPECT_EQ(stopped_at_visit[held], 1u);
    EXPECT_EQ(traced_stopped(pid), std::vector<pid_t>{});
    ASSERT_TRUE(session->idle_for(10ms));  // serves the target while attached, as a sampler does
  }
  expect_released(*target);
  EXPECT_TRUE(answers(*target, "max_gap_us "));
}

// The snapshot names a thread it took alone: tid, name and state, and how long after the others.
TEST(PtraceAllStop, TheSnapshotNamesAThreadTakenAlone) {
  REQUIRE_ROOT();
  if (last_cpu() == 0) GTEST_SKIP() << "needs 2 CPUs: one to hold a thread off";
  HeldTarget h;
  ASSERT_NO_FATAL_FAILURE(start_held("4", &h));
  const std::unique_ptr<Target>& target = h.target;
  const pid_t pid = target->pid(), held = h.held;
  std::string err;
  bool named = false;
  // The thread is held from before hearth starts, for 3 s (hearth's attach takes hundreds of ms
  // on a busy host, its snapshot follows), hearth waiting up to --stop-timeout (10 s, its most) for a
  // runnable thread. Should the attach outlast the hold (over 3 s under ASan beside builds at a
  // load of 79), it is tried again with a longer hold: one the attach cannot outlast, and still
  // shorter than hearth waits.
  for (int hold_ms : {3000, 6000, 9000}) {
    if (named) break;
    RealTimeHog hog(last_cpu(), std::chrono::milliseconds(hold_ms));
    ASSERT_TRUE(hog.ok()) << "could not run a SCHED_FIFO spinner";
    testing_support::HearthRun r =
        testing_support::run_hearth({"stacks", "--method", "ptrace", "-p", std::to_string(pid),
                                     "-n", "1", "--stop-timeout", "10000", "-o", "/dev/null"});
    ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.err;
    err = r.err;
    for (const std::string& line : testing_support::split(err, '\n')) {
      if (line.starts_with("hearth stacks: taken alone " + std::to_string(held) +
                           " (spin-0) R: ") &&
          line.ends_with(" ms after the others"))
        named = true;
    }
    EXPECT_NE(err.find(" 0 threads skipped)"), std::string::npos) << err;
  }
  EXPECT_TRUE(named) << err;
  expect_released(*target);
}

}  // namespace
}  // namespace hearth::stacks
