// PtraceSession's release of the target: one thread at a time, on saturated CPUs, at the
// end of the last sample, and with a thread in uninterruptible sleep.
#include "collectors/stacks/ptrace_session.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include "collectors/proc/threads.h"
#include "common/shutdown.h"
#include "tests/integration/cpu_hogs.h"
#include "tests/integration/ptrace_test_support.h"
#include "tests/integration/target_process.h"

namespace hearth::stacks {
namespace {

long read_gap(Target& target) {
  kill(target.pid(), SIGUSR1);  // blocked in the target (signalfd): no ptrace stop
  auto line = target.read_line(3s);
  if (!line || !line->starts_with("max_gap_us ")) return -1;
  return std::stol(line->substr(11));
}

using testing_support::CpuHog;
using testing_support::last_cpu;
using testing_support::pin_to;

// Every thread of PID onto CPU.
void pin_threads(pid_t pid, int cpu) {
  for (pid_t tid : tids_of(pid)) EXPECT_TRUE(pin_to(tid, cpu)) << "tid " << tid;
}

// The calling thread on CPU 0 for the scope (as `taskset -c 0 hearth`), then back.
class PinSelf {
 public:
  PinSelf() {
    saved_ok_ = sched_getaffinity(0, sizeof saved_, &saved_) == 0;
    (void)pin_to(0, 0);
  }
  ~PinSelf() {
    if (saved_ok_) (void)sched_setaffinity(0, sizeof saved_, &saved_);
  }
  PinSelf(const PinSelf&) = delete;
  PinSelf& operator=(const PinSelf&) = delete;

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
};

TEST(PtraceSession, DetachStopsEachThreadOnlyForItsOwnStop) {
  REQUIRE_ROOT();
  auto target =
      Target::start("stack_target-nofp", {"--threads", "100", "--depth", "10", "--spin", "20"});
  ASSERT_TRUE(target);
  pid_t pid = target->pid();
  long worst_stop = 0, worst_detach = 0;
  for (int cycle = 0; cycle < 5; ++cycle) {
    auto session = PtraceSession::attach(pid);
    ASSERT_TRUE(session) << session.error().message;
    auto noop = [](pid_t, const user_regs_struct&) {};
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE(session->stop_all(100ms, noop));
      ASSERT_TRUE(session->idle_for(10ms));
    }
    ASSERT_GE(read_gap(*target), 0);  // reset
    ASSERT_TRUE(session->stop_all(100ms, noop));
    ASSERT_TRUE(session->idle_for(20ms));
    long stop_gap = read_gap(*target);
    ASSERT_TRUE(session->idle_for(20ms));
    ASSERT_GE(read_gap(*target), 0);  // reset
    auto begin = Clock::now();
    auto detached = session->detach(PtraceSession::kDetachTimeout);
    auto took = Clock::now() - begin;
    ASSERT_TRUE(detached) << detached.error().message;
    std::this_thread::sleep_for(20ms);
    long detach_gap = read_gap(*target);
    std::printf(
        "[detach] cycle %d: heartbeat gap during stop_all %ld us, during detach %ld us "
        "(detach took %.1f ms)\n",
        cycle, stop_gap, detach_gap, std::chrono::duration<double, std::milli>(took).count());
    worst_stop = std::max(worst_stop, stop_gap);
    worst_detach = std::max(worst_detach, detach_gap);
    expect_released(*target);
  }
  EXPECT_TRUE(worst_detach < worst_stop || worst_detach < 20'000)
      << "detach stalled the heartbeat " << worst_detach << " us; a whole stop_all " << worst_stop
      << " us";
}

TEST(PtraceSession, DetachReleasesEveryThreadOnASaturatedCpu) {
  REQUIRE_ROOT();
  // As `taskset -c 1 stack_target --threads 300 --spin 150` with a busy loop on every CPU and
  // the sampler on CPU 0: the runnable threads need a long time to reach their stop.
  auto target =
      Target::start("stack_target-fp", {"--threads", "300", "--depth", "20", "--spin", "150"});
  ASSERT_TRUE(target);
  pid_t pid = target->pid();
  pin_threads(pid, last_cpu());
  std::vector<std::unique_ptr<CpuHog>> hogs;
  for (int cpu = 0; cpu <= last_cpu(); ++cpu) hogs.push_back(std::make_unique<CpuHog>(cpu));
  PinSelf pin_self;
  {
    auto session = PtraceSession::attach(pid);
    ASSERT_TRUE(session) << session.error().message;
    size_t skipped = 0;
    for (int round = 0; round < 2; ++round) {
      auto stats = session->stop_all(10ms, [](pid_t, const user_regs_struct&) {});
      ASSERT_TRUE(stats) << stats.error().message;
      skipped += stats->skipped.size();
      ASSERT_TRUE(session->idle_for(10ms));
    }
    size_t threads = session->threads().size();
    auto begin = Clock::now();
    auto detached = session->detach(PtraceSession::kDetachTimeout);
    std::printf("[saturated] %zu threads, %zu skipped in 2 samples; detach took %.1f ms: %s\n",
                threads, skipped,
                std::chrono::duration<double, std::milli>(Clock::now() - begin).count(),
                detached ? "ok" : detached.error().message.c_str());
    EXPECT_TRUE(detached) << detached.error().message;
  }
  expect_released(*target);
}

TEST(PtraceSession, StopEachOnASaturatedCpuSkipsNoRunnableThread) {
  REQUIRE_ROOT();
  auto target =
      Target::start("stack_target-fp", {"--threads", "100", "--depth", "10", "--spin", "50"});
  ASSERT_TRUE(target);
  pid_t pid = target->pid();
  pin_threads(pid, last_cpu());
  std::vector<std::unique_ptr<CpuHog>> hogs;
  for (int cpu = 0; cpu <= last_cpu(); ++cpu) hogs.push_back(std::make_unique<CpuHog>(cpu));
  PinSelf pin_self;
  {
    auto session = PtraceSession::attach(pid);
    ASSERT_TRUE(session) << session.error().message;
    for (int round = 0; round < 2; ++round) {
      std::map<pid_t, int> visits;
      auto begin = Clock::now();
      auto stats =
          session->stop_each(10ms, [&](pid_t tid, const user_regs_struct&) { ++visits[tid]; });
      auto took = Clock::now() - begin;
      ASSERT_TRUE(stats) << stats.error().message;
      EXPECT_EQ(stats->skipped, std::vector<pid_t>{}) << "round " << round;
      EXPECT_EQ(visits.size(), session->threads().size());
      ASSERT_FALSE(stats->stalls.empty());
      uint64_t longest = 0;
      for (const ThreadStall& s : stats->stalls) longest = std::max(longest, s.stall_ns);
      std::vector<uint64_t> each;
      for (const ThreadStall& s : stats->stalls) each.push_back(s.stall_ns);
      std::printf(
          "[stop_each saturated] round %d: %zu visited, %zu skipped in %.1f ms; per "
          "thread median %.1f us, max %.1f us; reported stall %.1f us\n",
          round, visits.size(), stats->skipped.size(),
          std::chrono::duration<double, std::milli>(took).count(),
          static_cast<double>(percentile(each, 0.5)) / 1e3, static_cast<double>(longest) / 1e3,
          static_cast<double>(stats->total_stall_ns) / 1e3);
      // The stall of one sample is that of its most stalled thread, not the whole walk.
      EXPECT_EQ(stats->total_stall_ns, longest);
      ASSERT_TRUE(session->idle_for(10ms));
    }
  }
  expect_released(*target);
}

TEST(PtraceSession, LastSampleCanReleaseTheTargetWithoutAStopOfItsOwn) {
  REQUIRE_ROOT();
  auto target =
      Target::start("stack_target-fp", {"--threads", "20", "--depth", "6", "--spin", "4"});
  ASSERT_TRUE(target);
  pid_t pid = target->pid();
  for (bool each : {false, true}) {
    auto session = PtraceSession::attach(pid);
    ASSERT_TRUE(session) << session.error().message;
    size_t threads = session->threads().size();
    ASSERT_TRUE(session->stop_all(100ms, [](pid_t, const user_regs_struct&) {}));
    std::map<pid_t, int> visits;
    auto visit = [&](pid_t tid, const user_regs_struct&) { ++visits[tid]; };
    auto stats = each ? session->stop_each(100ms, visit, Release::kDetach)
                      : session->stop_all(100ms, visit, Release::kDetach);
    ASSERT_TRUE(stats) << stats.error().message;
    EXPECT_EQ(visits.size(), threads);
    EXPECT_TRUE(session->released());
    EXPECT_EQ(still_traced(pid), std::vector<pid_t>{}) << "released by the window itself";
    EXPECT_FALSE(session->stop_all(100ms, [](pid_t, const user_regs_struct&) {}));
    EXPECT_TRUE(session->detach(PtraceSession::kDetachTimeout));
    expect_released(*target);
  }
}

TEST(PtraceSession, DetachNamesAThreadInDAndReleasesItWhenItWakes) {
  REQUIRE_ROOT();
  auto target = Target::start(
      "stack_target-fp", {"--threads", "4", "--depth", "2", "--spin", "1", "--dstate", "1500"});
  ASSERT_TRUE(target);
  pid_t pid = target->pid();
  pid_t dstate = find_thread(pid, "dstate");
  ASSERT_NE(dstate, 0);
  auto session = PtraceSession::attach(pid);
  ASSERT_TRUE(session) << session.error().message;
  while (state_of(pid, dstate) != 'D') std::this_thread::sleep_for(1ms);
  auto detached = session->detach(100ms);
  ASSERT_FALSE(detached) << "the D thread cannot have been stopped";
  std::printf("[detach D] %s\n", detached.error().message.c_str());
  EXPECT_NE(detached.error().message.find(std::to_string(dstate) + " in uninterruptible sleep"),
            std::string::npos);
  EXPECT_EQ(still_traced(pid), std::vector<pid_t>{dstate}) << "the others are released";
  // Its stop lands when the D sleep ends: released then, not left stopped.
  auto begin = Clock::now();
  while (!session->detach(100ms) && Clock::now() - begin < 3s) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(session->threads().empty());
  expect_released(*target);
}

// Not a timed test: prints what the target pays, for the report.

}  // namespace
}  // namespace hearth::stacks
