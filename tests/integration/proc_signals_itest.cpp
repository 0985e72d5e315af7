// `hearth watch`'s cpu and sched: signals (watch/proc_signals.h) read from this test's own
// threads: a spinner, sleepers in a futex wait (condition variable), a napper in nanosleep.
// Asserts only what a loaded machine does not change: a spinning thread is on a CPU or queued
// for one, a waiting thread is asleep; no timing is asserted.
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "watch/proc_signals.h"
#include "watch/rules.h"

namespace hearth::watch {
namespace {

using namespace std::chrono_literals;

// Threads of this process, named, that spin, wait on a condition variable (a futex) or nap in
// nanosleep until the object ends. Each has reached its loop (or its wait) when the
// constructor returns.
class TestThreads {
 public:
  TestThreads() = default;
  TestThreads(const TestThreads&) = delete;
  TestThreads& operator=(const TestThreads&) = delete;
  ~TestThreads() { stop(); }

  void spin(const char* name) {
    start(name, [this] {
      arrived();
      while (!stop_.load(std::memory_order_relaxed)) {
      }
    });
  }
  void wait(const char* name) {
    start(name, [this] {
      std::unique_lock lock(mutex_);
      ++arrived_;
      arrived_cv_.notify_all();
      stop_cv_.wait(lock, [this] { return stop_.load(); });  // a futex wait, asleep
    });
  }
  // One long nanosleep, which stop() ends with a signal (SIGURG, to a handler that does
  // nothing, installed while nappers run), so the thread stays asleep however long the test
  // takes on a loaded machine.
  void nap(const char* name) {
    if (nappers_.empty()) {
      struct sigaction wake {};
      wake.sa_handler = [](int) {};
      sigemptyset(&wake.sa_mask);
      sigaction(SIGURG, &wake, &old_urg_);
    }
    start(name, [this] {
      arrived();
      while (!stop_.load()) {
        timespec nap{60, 0};
        nanosleep(&nap, nullptr);
      }
      ++nappers_done_;
    });
    nappers_.push_back(threads_.back().native_handle());
  }
  // Until every thread started has reached its loop or its wait.
  void await_all() {
    std::unique_lock lock(mutex_);
    arrived_cv_.wait(lock, [this] { return arrived_ == threads_.size(); });
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    // A signal can land between a napper's check and its nanosleep: sent again until all end.
    while (nappers_done_.load() < nappers_.size()) {
      for (const pthread_t napper : nappers_) pthread_kill(napper, SIGURG);
      std::this_thread::sleep_for(1ms);
    }
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    if (!nappers_.empty()) sigaction(SIGURG, &old_urg_, nullptr);
    nappers_.clear();
  }

 private:
  template <typename F>
  void start(const char* name, F body) {
    threads_.emplace_back(body);
    pthread_setname_np(threads_.back().native_handle(), name);
  }
  void arrived() {
    std::lock_guard lock(mutex_);
    ++arrived_;
    arrived_cv_.notify_all();
  }

  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable arrived_cv_, stop_cv_;
  size_t arrived_ = 0;
  std::vector<std::thread> threads_;
  std::vector<pthread_t> nappers_;
  std::atomic<size_t> nappers_done_{0};
  struct sigaction old_urg_ {};
};

const ThreadShares* thread_named(const ProcSample& s, std::string_view name) {
  for (const ThreadShares& t : s.threads) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Rule signal_rule(std::string_view text) {
  RuleSet set = parse_rules(text, "rules");
  EXPECT_TRUE(set.errors.empty()) << (set.errors.empty() ? "" : set.errors[0]);
  return set.rules.empty() ? Rule{} : set.rules[0];
}

int64_t now_ns() {
  return static_cast<int64_t>(monotonic_ns());
}

// Until /proc shows every thread named in NAMES asleep (S): a thread that has just signalled
// its arrival may still be on its way into the wait. Not a timing: it waits as long as it takes.
void await_asleep(const std::vector<std::string>& names) {
  ProcSignals probe;
  for (;;) {
    const ProcSample s = probe.read({getpid()}, now_ns());
    size_t asleep = 0;
    for (const std::string& name : names) {
      const ThreadShares* t = thread_named(s, name);
      asleep += t != nullptr && t->state == 'S';
    }
    if (asleep == names.size()) return;
    std::this_thread::sleep_for(1ms);
  }
}

// Open descriptors of this process.
size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// SIGNALS: a ProcSignals keeping its files open for all threads, or for none.
void spinner_and_sleepers(ProcSignals& signals) {
  TestThreads threads;
  threads.spin("spinner");
  threads.wait("sleeper-1");
  threads.wait("sleeper-2");
  threads.nap("napper");
  threads.await_all();
  await_asleep({"sleeper-1", "sleeper-2", "napper"});

  const ProcSample first = signals.read({getpid()}, now_ns());
  EXPECT_TRUE(first.first);
  EXPECT_TRUE(first.errors.empty()) << first.errors[0];
  EXPECT_EQ(first.cpu, 0);
  ASSERT_NE(thread_named(first, "spinner"), nullptr);
  EXPECT_EQ(thread_named(first, "spinner")->span_s, 0);
  EXPECT_EQ(signal_value(signal_rule("sched:sleeping(thread=sleeper*) > 50%"), first),
            std::nullopt);

  std::this_thread::sleep_for(300ms);
  const ProcSample s = signals.read({getpid()}, now_ns());
  EXPECT_FALSE(s.first);
  EXPECT_GT(s.interval_s, 0);
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];

  const ThreadShares* spinner = thread_named(s, "spinner");
  ASSERT_NE(spinner, nullptr);
  EXPECT_EQ(spinner->pid, getpid());
  EXPECT_GT(spinner->span_s, 0);
  EXPECT_GT(spinner->running + spinner->runnable, 0.8)
      << "running " << spinner->running << " runnable " << spinner->runnable;
  EXPECT_LT(spinner->sleeping, 0.2);
  EXPECT_EQ(spinner->state, 'R');
  // The process's CPU holds at least the spinner's; no more than the machine's cores.
  EXPECT_GE(s.cpu + 1e-9, spinner->running);
  EXPECT_LE(s.cpu, std::thread::hardware_concurrency() * 1.05);

  for (const char* name : {"sleeper-1", "sleeper-2", "napper"}) {
    const ThreadShares* t = thread_named(s, name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_GT(t->sleeping, 0.8) << name << ": running " << t->running << " runnable " << t->runnable
                                << " blocked " << t->blocked;
    EXPECT_NEAR(t->running + t->runnable + t->sleeping + t->blocked, 1, 1e-9) << name;
    EXPECT_EQ(t->state, 'S') << name;
    EXPECT_EQ(t->queued_s, 0) << name;
  }
  EXPECT_LE(spinner->queued_s, s.interval_s);
  // The futex sleepers have not run since the first read: their stretch in S spans both.
  const ThreadShares* sleeper = thread_named(s, "sleeper-1");
  EXPECT_GT(sleeper->in_state_s, 0);
  EXPECT_LE(sleeper->in_state_s, s.interval_s);

  const auto sleeping = signal_value(signal_rule("sched:sleeping(thread=sleeper*) > 50%"), s);
  ASSERT_TRUE(sleeping);
  EXPECT_GT(*sleeping, 0.5);
  const auto asleep_for = signal_value(signal_rule("sched:sleeping(thread=sleeper-?) > 1s"), s);
  ASSERT_TRUE(asleep_for);
  EXPECT_GT(*asleep_for, 0);
  EXPECT_EQ(signal_value(signal_rule("sched:sleeping(thread=nobody*) > 50%"), s), std::nullopt);
  EXPECT_EQ(signal_value(signal_rule("sched:blocked(thread=nobody*) > 1s"), s), std::nullopt);
  const auto cpu = signal_value(signal_rule("cpu > 50%"), s);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(*cpu, s.cpu);
}

TEST(ProcSignals, SpinnerRunsAndSleepersSleep) {
  ProcSignals signals;
  spinner_and_sleepers(signals);
}

// With no descriptor kept between reads (a budget of 0), each file is opened, read, closed:
// the same figures, and no descriptor left open.
TEST(ProcSignals, SpinnerRunsAndSleepersSleepWithoutKeptFiles) {
  const size_t before = open_fds();
  ProcSignals signals(0);
  spinner_and_sleepers(signals);
  EXPECT_EQ(open_fds(), before);
}

// Files kept within the budget only, and all closed with their ProcSignals.
TEST(ProcSignals, KeptFilesStayWithinTheBudget) {
  const size_t before = open_fds();
  {
    TestThreads threads;
    for (int i = 0; i < 6; ++i) threads.wait("budget");
    threads.await_all();
    ProcSignals signals(5);
    for (int i = 0; i < 3; ++i) {
      const ProcSample s = signals.read({getpid()}, now_ns());
      EXPECT_GE(s.threads.size(), 7u);
      // Two files of two threads kept: 4 of the 5.
      EXPECT_EQ(open_fds(), before + 4);
    }
  }
  EXPECT_EQ(open_fds(), before);
}

// A thread that starts between two reads is counted from its first read; one that ended is
// gone.
TEST(ProcSignals, ThreadsComeAndGo) {
  auto early = std::make_unique<TestThreads>();
  early->wait("early");
  early->await_all();
  ProcSignals signals;
  signals.read({getpid()}, now_ns());
  early.reset();
  TestThreads late;
  late.wait("late");
  late.await_all();
  const ProcSample s = signals.read({getpid()}, now_ns());
  EXPECT_EQ(thread_named(s, "early"), nullptr);
  const ThreadShares* t = thread_named(s, "late");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->span_s, 0);
  EXPECT_EQ(t->running + t->runnable + t->sleeping + t->blocked, 0);
  EXPECT_EQ(signal_value(signal_rule("sched:sleeping(thread=late) > 50%"), s), std::nullopt);

  // The same threads again (the directory not listed: none gone, the count theirs), then one
  // more with none gone (the count changed): each read has every thread, in tid order.
  const ProcSample same = signals.read({getpid()}, now_ns());
  EXPECT_EQ(same.threads.size(), s.threads.size());
  ASSERT_NE(thread_named(same, "late"), nullptr);
  EXPECT_GT(thread_named(same, "late")->span_s, 0);
  TestThreads later;
  later.wait("later");
  later.await_all();
  const ProcSample more = signals.read({getpid()}, now_ns());
  EXPECT_EQ(more.threads.size(), s.threads.size() + 1);
  EXPECT_NE(thread_named(more, "later"), nullptr);
  EXPECT_NE(thread_named(more, "late"), nullptr);
  for (size_t i = 1; i < more.threads.size(); ++i) {
    EXPECT_LT(more.threads[i - 1].tid, more.threads[i].tid);
  }
}

// A process that is not there: one line naming it, and the others still read.
TEST(ProcSignals, AProcessGoneIsOneLine) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ProcSignals signals;
  const ProcSample s = signals.read({child, getpid()}, now_ns());
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.errors[0],
            "cannot read /proc/" + std::to_string(child) + "/task: No such file or directory");
  EXPECT_FALSE(s.threads.empty());
  for (const ThreadShares& t : s.threads) EXPECT_EQ(t.pid, getpid());
}

}  // namespace
}  // namespace hearth::watch
