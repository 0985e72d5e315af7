// A busy host for integration tests: a child process spinning on each CPU at normal priority,
// killed when the scope ends (the common case of a production server, and of a loaded CI
// machine).
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace hearth::testing_support {

inline int last_cpu() {
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))) - 1;
}

inline bool pin_to(pid_t tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(tid, sizeof set, &set) == 0;
}

// A child spinning on one CPU at normal priority, killed by the destructor.
class CpuHog {
 public:
  explicit CpuHog(int cpu) {
    pid_ = fork();
    if (pid_ == 0) {
      (void)pin_to(0, cpu);
      for (;;) asm volatile("");
    }
  }
  ~CpuHog() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;

 private:
  pid_t pid_ = -1;
};

// One hog per CPU.
inline std::vector<std::unique_ptr<CpuHog>> hog_every_cpu() {
  std::vector<std::unique_ptr<CpuHog>> hogs;
  for (int cpu = 0; cpu <= last_cpu(); ++cpu) hogs.push_back(std::make_unique<CpuHog>(cpu));
  return hogs;
}

}  // namespace hearth::testing_support
