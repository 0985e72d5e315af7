// Threads that keep appearing and exiting, for "threads appear or exit mid-sample".
//
//   thread_churn_target [--rate N] [--base B] [--life MS] [--depth D]
//
// B long-lived threads (default 2, named "base-I") sleep in 1 ms steps; a spawner thread
// creates N threads per second (default 200, named "churn-I"), each of which spins or sleeps
// for 0–MS ms (default 10) and exits. With --depth D each first recurses 0 to D-1 calls deep
// (churn_recurse, by its index): stacks that keep changing, for a long-running sampler's tables.
// Prints "ready PID" once running; exits when stdin closes.
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

std::atomic<long> g_alive{0};
volatile unsigned long g_sink;
long g_life_us = 10000;
long g_depth = 0;

void sleep_us(long us) {
  timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, nullptr);
}

void churn_live(long index) {
  long life_us = (index * 7919) % g_life_us;
  if (index % 2 == 0) {
    auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(life_us);
    unsigned long x = static_cast<unsigned long>(index);
    while (std::chrono::steady_clock::now() < end) g_sink = x = x * 6364136223846793005ul + 1;
  } else {
    sleep_us(life_us);
  }
}

// DEPTH calls deep, then the thread's life: not a tail call (the sum after it), so each level
// keeps its frame.
__attribute__((noinline)) long churn_recurse(long depth, long index) {
  if (depth <= 0) {
    churn_live(index);
    return 0;
  }
  volatile long here = depth;
  return churn_recurse(depth - 1, index) + here;
}

void churn_main(long index) {
  std::string name = "churn-" + std::to_string(index % 100000);
  pthread_setname_np(pthread_self(), name.c_str());
  g_sink = static_cast<unsigned long>(
      churn_recurse(g_depth > 0 ? (index * 104729) % g_depth : 0, index));
  g_alive.fetch_sub(1);
}

void spawner_main(int rate) {
  pthread_setname_np(pthread_self(), "spawner");
  const long period_us = 1000000 / rate;
  for (long i = 0;; ++i) {
    if (g_alive.load() < 1000) {  // never run away if threads cannot exit (target stopped)
      g_alive.fetch_add(1);
      std::thread(churn_main, i).detach();
    }
    sleep_us(period_us);
  }
}

void base_main(int index) {
  std::string name = "base-" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  for (;;) sleep_us(1000);
}

}  // namespace

int main(int argc, char** argv) {
  int rate = 200;
  int base = 2;
  bool ok = argc % 2 == 1;
  for (int i = 1; ok && i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--rate") {
      rate = std::atoi(argv[i + 1]);
    } else if (flag == "--base") {
      base = std::atoi(argv[i + 1]);
    } else if (flag == "--life") {
      g_life_us = std::atol(argv[i + 1]) * 1000;
    } else if (flag == "--depth") {
      g_depth = std::atol(argv[i + 1]);
    } else {
      ok = false;
    }
  }
  if (!ok || rate <= 0 || rate > 1000000 || base < 0 || g_life_us <= 0 || g_depth < 0 ||
      g_depth > 10000) {
    std::fprintf(stderr, "usage: %s [--rate N] [--base B] [--life MS] [--depth D]\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < base; ++i) std::thread(base_main, i).detach();
  std::thread(spawner_main, rate).detach();
  std::printf("ready %d\n", getpid());
  std::fflush(stdout);
  char buffer[256];
  while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
  }
  std::_Exit(0);  // stdin closed
}
