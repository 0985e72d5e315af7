// Two threads passing one byte back and forth through two pipes: ~2 context switches and 2
// wakeups per round trip, the worst case for a scheduler tracer. Used by sched_bench.sh.
//
//   pingpong [--seconds S] [--cpu C]
//
// Both threads are pinned to CPU C (default 1). Prints "ready PID", waits for a line on stdin
// ("go"), runs for S seconds (default 3), prints "roundtrips_per_s N" and exits.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

int g_ping[2], g_pong[2];
std::atomic<bool> g_stop{false};

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
}

void echo_main(int cpu) {
  pthread_setname_np(pthread_self(), "pong");
  pin(cpu);
  char c;
  while (read(g_ping[0], &c, 1) == 1) {
    if (write(g_pong[1], &c, 1) != 1) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  int cpu = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--cpu") == 0) cpu = std::atoi(argv[i + 1]);
  }
  if (pipe(g_ping) != 0 || pipe(g_pong) != 0) return 1;
  pin(cpu);
  std::thread echo(echo_main, cpu);
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  char line[64];
  if (std::fgets(line, sizeof line, stdin) == nullptr) return 1;
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto end = start + std::chrono::duration<double>(seconds);
  long trips = 0;
  char c = 'x';
  for (;;) {
    for (int k = 0; k < 256; ++k) {
      if (write(g_ping[1], &c, 1) != 1 || read(g_pong[0], &c, 1) != 1) return 1;
    }
    trips += 256;
    if (Clock::now() >= end) break;
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("roundtrips_per_s %.0f\n", static_cast<double>(trips) / elapsed);
  std::fflush(stdout);
  close(g_ping[1]);
  echo.join();
  return 0;
}
