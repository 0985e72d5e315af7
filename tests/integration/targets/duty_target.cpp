// A duty-cycle workload for checking `hearth stacks --state` against `hearth sched`.
//
//   duty_target [--threads N] [--run-us US] [--sleep-us US]
//
// N threads "duty-I" (default 16) each spin for RUN_US (default 1000) of their own CPU time,
// then sleep SLEEP_US (default 6000) in nanosleep, forever. The share of time a thread is on a
// CPU or waiting for one depends on the load of the host; the sleeping share is whatever is
// left. Prints "ready PID" once every thread runs; exits when stdin closes.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

volatile unsigned long g_sink;
std::atomic<int> g_started{0};

long thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

// Spins until this thread has used US of CPU time (not wall time: a preempted spin still
// does its full share of work, as a real request handler would).
__attribute__((noinline)) void work_for(long us) {
  long end = thread_cpu_ns() + us * 1000;
  unsigned long x = 1;
  while (thread_cpu_ns() < end) {
    for (int i = 0; i < 200; ++i) g_sink = x = x * 6364136223846793005ul + 1;
  }
}

__attribute__((noinline)) void rest_for(long us) {
  timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, nullptr);
}

[[noreturn]] void duty_main(int index, long run_us, long sleep_us) {
  pthread_setname_np(pthread_self(), ("duty-" + std::to_string(index)).c_str());
  g_started.fetch_add(1);
  for (;;) {
    work_for(run_us);
    rest_for(sleep_us);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 16;
  long run_us = 1000, sleep_us = 6000;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() { return i + 1 < argc ? argv[++i] : (std::exit(2), nullptr); };
    if (std::strcmp(argv[i], "--threads") == 0) {
      threads = std::atoi(next());
    } else if (std::strcmp(argv[i], "--run-us") == 0) {
      run_us = std::atol(next());
    } else if (std::strcmp(argv[i], "--sleep-us") == 0) {
      sleep_us = std::atol(next());
    } else {
      std::fprintf(stderr, "usage: duty_target [--threads N] [--run-us US] [--sleep-us US]\n");
      return 2;
    }
  }
  for (int i = 0; i < threads; ++i) std::thread(duty_main, i, run_us, sleep_us).detach();
  while (g_started.load() < threads) usleep(1000);
  std::printf("ready %d\n", getpid());
  std::fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  return 0;
}
