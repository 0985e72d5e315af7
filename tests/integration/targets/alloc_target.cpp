// A process for `hearth alloc` to sample: threads that allocate from three call sites with known
// byte totals, and nothing else while they do.
//
//   alloc_target [--threads N] [--rounds R]
//
// Each round of a thread allocates, and frees again:
//   alloc_site_a   6,000 bytes: 4 x malloc(1500)                    60%
//   alloc_site_b   3,000 bytes: 30 x calloc(10, 10)                 30%
//   alloc_site_c   1,000 bytes: malloc(16), then realloc to 984     10%
// (the realloc grows the block in place or moves it, inside glibc: no second malloc call).
// alloc_site_* are extern "C" and never inlined, so their names appear exactly so.
//
// Protocol: prints "ready PID", then "malloc 0xADDR" (the address of the malloc it calls). With
// --rounds R, waits for a line "go" on stdin, has every thread do R rounds, and prints
// "done BYTES_A BYTES_B BYTES_C SECONDS" (the totals of all threads, and the wall time from "go"
// to the last thread's end: tests/bench/alloc_bench.sh's figure); with --rounds 0, the threads
// allocate from the start and never stop. Exits when stdin closes.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/targets/target_frame.h"

namespace {

void* volatile g_keep;  // the compiler may not elide an allocation whose pointer escapes here
std::atomic<bool> g_go{false};
std::atomic<bool> g_stop{false};

}  // namespace

extern "C" TARGET_FRAME void alloc_site_a() {
  void* p[4];
  for (void*& q : p) {
    q = malloc(1500);
    std::memset(q, 1, 8);
    g_keep = q;
  }
  for (void* q : p) free(q);
}

extern "C" TARGET_FRAME void alloc_site_b() {
  void* p[30];
  for (void*& q : p) {
    q = calloc(10, 10);
    g_keep = q;
  }
  for (void* q : p) free(q);
}

extern "C" TARGET_FRAME void alloc_site_c() {
  void* p = malloc(16);
  g_keep = p;
  p = realloc(p, 984);
  g_keep = p;
  free(p);
}

extern "C" TARGET_FRAME void alloc_round() {
  alloc_site_a();
  alloc_site_b();
  alloc_site_c();
}

int main(int argc, char** argv) {
  int threads = 2;
  long rounds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string o = argv[i];
    if (o == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (o == "--rounds")
      rounds = std::atol(argv[i + 1]);
  }
  std::vector<std::thread> workers;
  std::atomic<int> finished{0};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      char name[16];
      std::snprintf(name, sizeof name, "alloc-%d", t);
      pthread_setname_np(pthread_self(), name);
      while (!g_go.load()) usleep(1000);
      for (long r = 0; (rounds == 0 || r < rounds) && !g_stop.load(); ++r) alloc_round();
      finished.fetch_add(1);
    });
  }
  std::printf("ready %d\nmalloc %p\n", getpid(), dlsym(RTLD_DEFAULT, "malloc"));
  std::fflush(stdout);
  char line[64];
  if (rounds == 0) {
    g_go = true;
  } else if (std::fgets(line, sizeof line, stdin) != nullptr && std::strncmp(line, "go", 2) == 0) {
    const auto start = std::chrono::steady_clock::now();
    g_go = true;
    while (finished.load() < threads) usleep(1000);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long n = rounds * threads;
    std::printf("done %ld %ld %ld %.6f\n", n * 6000, n * 3000, n * 1000, seconds);
    std::fflush(stdout);
  }
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
  }
  g_stop = true;
  g_go = true;
  for (std::thread& w : workers) w.join();
  return 0;
}
