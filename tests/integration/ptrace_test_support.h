// Helpers shared by the PtraceSession integration tests (ptrace_session_itest.cpp,
// ptrace_detach_itest.cpp): root check, thread states, what is still traced.
#pragma once

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
#include "collectors/stacks/ptrace_session.h"
#include "common/shutdown.h"
#include "tests/integration/target_process.h"

namespace hearth::stacks {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing_support::Target;

inline bool is_root() {
  return geteuid() == 0;
}
#define REQUIRE_ROOT()                                              \
  do {                                                              \
    if (!is_root()) {                                               \
      GTEST_SKIP() << "ptrace tests need root (or CAP_SYS_PTRACE)"; \
    }                                                               \
  } while (0)

inline std::vector<pid_t> tids_of(pid_t pid) {
  auto tids = proc::list_threads(pid);
  return tids ? *tids : std::vector<pid_t>{};
}

inline char state_of(pid_t pid, pid_t tid) {
  auto stat = proc::thread_stat(pid, tid);
  return stat ? stat->state : '?';
}

// The thread of PID called NAME; waits up to 2 s for it (a target names its threads as they
// start, which may be a moment after it printed "ready" on a busy machine).
inline pid_t find_thread(pid_t pid, const std::string& name) {
  auto deadline = Clock::now() + 2s;
  do {
    for (pid_t tid : tids_of(pid)) {
      if (auto n = proc::thread_name(pid, tid); n && *n == name) return tid;
    }
    std::this_thread::sleep_for(5ms);
  } while (Clock::now() < deadline);
  return 0;
}

// Threads of PID in a ptrace stop ('t'), after letting just-resumed ones get going.
inline std::vector<pid_t> traced_stopped(pid_t pid, Clock::duration settle = 200ms) {
  std::vector<pid_t> stuck;
  auto deadline = Clock::now() + settle;
  do {
    stuck.clear();
    for (pid_t tid : tids_of(pid)) {
      if (state_of(pid, tid) == 't') stuck.push_back(tid);
    }
    if (stuck.empty()) break;
    std::this_thread::sleep_for(5ms);
  } while (Clock::now() < deadline);
  return stuck;
}

// Threads of PID whose TracerPid is not 0.
inline std::vector<pid_t> still_traced(pid_t pid) {
  std::vector<pid_t> traced;
  for (pid_t tid : tids_of(pid)) {
    auto tracer = proc::tracer_pid(pid, tid);
    if (tracer && *tracer != 0) traced.push_back(tid);
  }
  return traced;
}

// The target answers SIGUSR1 with a line starting with PREFIX.
inline bool answers(Target& target, const std::string& prefix) {
  kill(target.pid(), SIGUSR1);
  auto line = target.read_line(3s);
  return line && line->starts_with(prefix);
}

inline void expect_released(Target& target) {
  EXPECT_EQ(still_traced(target.pid()), std::vector<pid_t>{}) << "threads still traced";
  EXPECT_EQ(traced_stopped(target.pid()), std::vector<pid_t>{}) << "threads left in 't'";
}

inline uint64_t percentile(std::vector<uint64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace hearth::stacks
