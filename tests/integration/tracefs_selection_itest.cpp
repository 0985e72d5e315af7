// How a tracefs instance selects the target's tasks in the kernel (tracefs_instance.h,
// task_filter.h), read back from the instance's own files, and the fork watcher
// (fork_watcher.h) seeing this process's new threads. Needs root and tracefs, like `hearth
// sched`.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collectors/sched/fork_watcher.h"
#include "collectors/sched/task_filter.h"
#include "collectors/sched/tracefs_instance.h"
#include "tests/integration/hearth_cli.h"

namespace hearth::sched {
namespace {

using hearth::testing_support::slurp;

std::string instance_file(const TracefsInstance& inst, const std::string& file) {
  std::string text = slurp(std::string(kTracingDir) + "/instances/" + inst.name() + "/" + file);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

pid_t gettid_() {
  return static_cast<pid_t>(::syscall(SYS_gettid));
}

class TracefsSelection : public testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (tracefs)";
  }
};

// N tids no range can hold together: every second live task (from /proc), so that each gap
// between two of them holds a live task and is never bridged (task_filter.h).
std::vector<pid_t> scattered(size_t n) {
  std::vector<pid_t> live;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
      live.push_back(std::stoi(name));
  }
  std::sort(live.begin(), live.end());
  std::vector<pid_t> out;
  for (size_t i = 0; i < live.size() && out.size() < n; i += 2) out.push_back(live[i]);
  EXPECT_EQ(out.size(), n) << "too few tasks on this machine";
  return out;
}

// The tids set_event_pid lists, as numbers (a substring search would find 123 in 1234).
std::set<pid_t> listed_pids(const TracefsInstance& inst) {
  std::istringstream in(instance_file(inst, "set_event_pid"));
  std::set<pid_t> out;
  for (pid_t t; in >> t;) out.insert(t);
  return out;
}

// With event-fork on, the kernel drops a listed pid when its task is freed: a task that was
// alive when listed and has exited since is rightly missing. One still alive must be there.
void expect_listed_unless_gone(const std::set<pid_t>& listed, const std::vector<pid_t>& tids) {
  for (pid_t t : tids) {
    if (listed.count(t)) continue;
    EXPECT_FALSE(std::filesystem::exists("/proc/" + std::to_string(t)))
        << t << " is alive and missing from set_event_pid";
  }
}

TEST_F(TracefsSelection, AFewThreadsGetEventFilters) {
  InstanceOptions io;
  // Three consecutive tids, then one past our own pid: the gap holds a live task (us), so two
  // ranges.
  const pid_t me = ::getpid();
  io.tids = {me - 10, me - 9, me - 8, me + 1};
  io.waking = true;
  io.forks = true;
  auto inst = TracefsInstance::create(io);
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(inst->selection(), Selection::kEventFilter);
  EXPECT_FALSE(inst->kernel_follows_forks());
  const std::string p = std::to_string(me - 10);
  const std::string p2 = std::to_string(me - 8);
  const std::string p7 = std::to_string(me + 1);
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_switch/filter"),
            "(prev_pid>=" + p + "&&prev_pid<=" + p2 + ")||prev_pid==" + p7 + "||(next_pid>=" + p +
                "&&next_pid<=" + p2 + ")||next_pid==" + p7);
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_waking/filter"),
            "(pid>=" + p + "&&pid<=" + p2 + ")||pid==" + p7);
  EXPECT_EQ(instance_file(*inst, "events/task/task_newtask/filter"),
            "(common_pid>=" + p + "&&common_pid<=" + p2 + ")||common_pid==" + p7);
  EXPECT_EQ(instance_file(*inst, "set_event_pid"), "");
  EXPECT_EQ(inst->describe_selection(), "event filter, 4 threads in 2 ranges");
}

TEST_F(TracefsSelection, GapsOfFreeTidsAreBridged) {
  // Two tids 40 apart with no task on any id from one to the other: a window of free ids below
  // pid_max (a few hundred tasks live among tens of thousands of ids), half the id space away
  // from where the kernel hands out the next ones, so that nothing takes one meanwhile.
  const pid_t pid_max = std::stoi(slurp("/proc/sys/kernel/pid_max"));
  const pid_t last = std::stoi(slurp("/proc/sys/kernel/ns_last_pid"));
  const pid_t span = pid_max - 400;
  pid_t a = 0;
  for (pid_t k = 0; k < span && a == 0; k += 41) {
    const pid_t lo = 300 + (last + pid_max / 2 + k) % span;
    bool all_free = lo + 40 < pid_max;
    for (pid_t t = lo; t <= lo + 40 && all_free; ++t) all_free = tid_is_free(t);
    if (all_free) a = lo;
  }
  ASSERT_NE(a, 0) << "no 41 free ids below pid_max " << pid_max;
  const pid_t b = a + 40;
  InstanceOptions io;
  io.tids = {a, b};
  auto inst = TracefsInstance::create(io);
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_switch/filter"),
            "(prev_pid>=" + std::to_string(a) + "&&prev_pid<=" + std::to_string(b) +
                ")||(next_pid>=" + std::to_string(a) + "&&next_pid<=" + std::to_string(b) + ")");
  EXPECT_EQ(inst->describe_selection(), "event filter, 2 threads in 1 range");
}

TEST_F(TracefsSelection, WakeupsAreFilteredWithTheTidsAndAllWithThePidList) {
  const std::string p = std::to_string(::getpid());
  InstanceOptions io;
  io.tids = {::getpid()};
  io.wakeups = true;
  auto inst = TracefsInstance::create(io);
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_wakeup/enable"), "1");
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_waking/enable"), "0");
  // Every wakeup of the selected tasks: the moment each becomes runnable.
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_wakeup/filter"), "pid==" + p);
  // The pid list can't name the tids in a condition: every wakeup of the listed tasks.
  ASSERT_TRUE(inst->add_tids(scattered(kMaxFilterComparisons)));
  ASSERT_EQ(inst->selection(), Selection::kPidList);
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_wakeup/filter"), "none");
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_switch/filter"), "none");

  InstanceOptions every;
  every.wakeups = true;
  auto all = TracefsInstance::create(every);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->selection(), Selection::kEveryTask);
  EXPECT_EQ(instance_file(*all, "events/sched/sched_wakeup/filter"), "none");
}

TEST_F(TracefsSelection, ManyScatteredThreadsGetThePidList) {
  InstanceOptions io;
  io.tids = scattered(kMaxFilterComparisons + 1);
  io.waking = true;
  auto inst = TracefsInstance::create(io);
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(inst->selection(), Selection::kPidList);
  EXPECT_TRUE(inst->kernel_follows_forks());
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_switch/filter"), "none");
  EXPECT_EQ(instance_file(*inst, "options/event-fork"), "1");
  expect_listed_unless_gone(listed_pids(*inst), io.tids);
}

TEST_F(TracefsSelection, OutgrowingTheFilterMovesToThePidListAndDropsTheFilters) {
  // A thread of ours that lives through the test: the kernel keeps a listed tid until its task
  // is freed, and our pid + 1 is the next pid anyone on the host forks (CI once saw it dropped).
  std::mutex m;
  std::condition_variable cv;
  pid_t held = 0;
  bool done = false;
  std::thread holder([&] {
    std::unique_lock<std::mutex> lock(m);
    held = gettid_();
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return held != 0; });
  }
  struct Release {
    std::mutex& m;
    std::condition_variable& cv;
    bool& done;
    std::thread& t;
    ~Release() {
      {
        std::lock_guard<std::mutex> lock(m);
        done = true;
      }
      cv.notify_all();
      t.join();
    }
  } release{m, cv, done, holder};

  const pid_t me = ::getpid();
  InstanceOptions io;
  io.tids = {me};
  io.waking = true;
  auto inst = TracefsInstance::create(io);
  ASSERT_TRUE(inst) << inst.error().message;
  ASSERT_EQ(inst->selection(), Selection::kEventFilter);
  // One more thread right after ours: still one range.
  ASSERT_TRUE(inst->add_tids({me + 1}));
  EXPECT_EQ(inst->selection(), Selection::kEventFilter);
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_waking/filter"),
            "(pid>=" + std::to_string(me) + "&&pid<=" + std::to_string(me + 1) + ")");
  ASSERT_TRUE(inst->add_tids({held}));
  EXPECT_EQ(inst->selection(), Selection::kEventFilter);
  const std::vector<pid_t> more = scattered(kMaxFilterComparisons);
  ASSERT_TRUE(inst->add_tids(more));
  EXPECT_EQ(inst->selection(), Selection::kPidList);
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_switch/filter"), "none");
  EXPECT_EQ(instance_file(*inst, "events/sched/sched_waking/filter"), "none");
  // The tids the filters held moved with the rest: ours and our thread are alive, so listed.
  const std::set<pid_t> listed = listed_pids(*inst);
  EXPECT_EQ(listed.count(me), 1u);
  EXPECT_EQ(listed.count(held), 1u) << held;
  expect_listed_unless_gone(listed, more);
  // me + 1 may have been taken and freed by another task since: counted, not looked for.
  const size_t threads = kMaxFilterComparisons + (held == me + 1 ? 2 : 3);
  EXPECT_EQ(inst->describe_selection(), "pid list, " + std::to_string(threads) + " threads");
}

TEST_F(TracefsSelection, ForkWatcherSeesOurNewThreadAndChildProcessWithTheirParent) {
  std::mutex m;
  std::condition_variable cv;
  std::vector<ForkEvent> seen;
  auto watcher = ForkWatcher::start([&](const std::vector<ForkEvent>& forks) {
    std::lock_guard<std::mutex> lock(m);
    seen.insert(seen.end(), forks.begin(), forks.end());
    cv.notify_all();
  });
  ASSERT_TRUE(watcher) << watcher.error().message;
  const pid_t parent = gettid_();
  pid_t child = 0;
  std::thread t([&] {
    {
      std::lock_guard<std::mutex> lock(m);
      child = gettid_();
    }
    cv.notify_all();
  });
  t.join();
  std::unique_lock<std::mutex> lock(m);
  bool found = cv.wait_for(lock, std::chrono::seconds(10), [&] {
    for (const ForkEvent& f : seen)
      if (f.parent_pid == parent && f.child_pid == child) return true;
    return false;
  });
  EXPECT_TRUE(found) << "no fork " << parent << " -> " << child << " among " << seen.size();
  for (const ForkEvent& f : seen) {
    if (f.child_pid == child) {
      EXPECT_TRUE(f.thread) << "a thread, by its clone flags";
    }
  }
  lock.unlock();
  // A child process: not a thread.
  pid_t process = fork();
  if (process == 0) _exit(0);
  ASSERT_GT(process, 0);
  waitpid(process, nullptr, 0);
  lock.lock();
  found = cv.wait_for(lock, std::chrono::seconds(10), [&] {
    for (const ForkEvent& f : seen)
      if (f.parent_pid == parent && f.child_pid == process) return true;
    return false;
  });
  EXPECT_TRUE(found) << "no fork " << parent << " -> " << process;
  for (const ForkEvent& f : seen) {
    if (f.child_pid == process) {
      EXPECT_FALSE(f.thread) << "a new process, by its clone flags";
    }
  }
  lock.unlock();
  (*watcher)->stop();
  EXPECT_GE((*watcher)->forks_seen(), 1u);
  (*watcher)->stop();  // idempotent
}

}  // namespace
}  // namespace hearth::sched
