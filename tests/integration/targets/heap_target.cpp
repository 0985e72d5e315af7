// A process for `hearth alloc --live` and `--count`: threads that allocate at known sites, through
// every allocator entry hearth probes, keep the blocks of three sites and free all the others.
//
//   heap_target [--threads N] [--rounds R]
//
// Each round of a thread, in this order:
//   heap_keep_big          malloc(3000)                          kept
//   heap_keep_aligned      posix_memalign(&p, 64, 1000)          kept
//   heap_keep_realloc      malloc(16), realloc to 2000           kept (the 16 bytes leave with the
//                                                                realloc)
//   heap_free_all          malloc(4000)                          freed
//   heap_realloc_away      malloc(100), realloc to 2000          freed
//   heap_memalign          memalign(64, 1000)                    freed
//   heap_aligned_alloc     aligned_alloc(64, 1024)               freed
//   heap_valloc            valloc(1000)                          freed
//   heap_pvalloc           pvalloc(100): a whole page, 4096      freed
//   heap_memalign_small    memalign(8, 1000): glibc hands it     freed
//                          to its malloc (counted once, there)
//   heap_operator_new      new char[1000]: libstdc++'s operator  freed
//                          new calls malloc
// So the live heap at the end is 3000 / 1000 / 2000 bytes a round from the kept sites (50% /
// 16.7% / 33.3%), and the calls of every site but the two realloc ones are one a round.
// heap_* are extern "C" and never inlined, so their names appear exactly so.
//
// Protocol: prints "ready PID" and "free 0xADDR" (the address of the free it calls), waits for
// a line "go" on stdin, has every thread do R rounds, prints "done ROUNDS" (of all threads
// together); the kept blocks stay allocated until the process exits, which it does when stdin
// closes, without freeing them.
#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/targets/target_frame.h"

namespace {

void* volatile g_sink;        // the compiler may not elide an allocation whose pointer escapes here
std::atomic<int> g_state{0};  // 0: wait, 1: run the rounds, 2: quit without

// Kept blocks, per thread: a list the compiler cannot prove dead.
thread_local std::vector<void*>* g_kept;

void keep(void* p) {
  g_sink = p;
  g_kept->push_back(p);
}

void drop(void* p) {
  g_sink = p;
  free(p);
}

}  // namespace

extern "C" TARGET_FRAME void heap_keep_big() {
  keep(malloc(3000));
}

extern "C" TARGET_FRAME void heap_keep_aligned() {
  void* p = nullptr;
  if (posix_memalign(&p, 64, 1000) == 0) keep(p);
}

extern "C" TARGET_FRAME void heap_keep_realloc() {
  void* p = malloc(16);
  g_sink = p;
  keep(realloc(p, 2000));
}

extern "C" TARGET_FRAME void heap_free_all() {
  drop(malloc(4000));
}

extern "C" TARGET_FRAME void heap_realloc_away() {
  void* p = malloc(100);
  g_sink = p;
  drop(realloc(p, 2000));
}

extern "C" TARGET_FRAME void heap_memalign() {
  drop(memalign(64, 1000));
}

extern "C" TARGET_FRAME void heap_aligned_alloc() {
  drop(aligned_alloc(64, 1024));
}

extern "C" TARGET_FRAME void heap_valloc() {
  drop(valloc(1000));
}

extern "C" TARGET_FRAME void heap_pvalloc() {
  drop(pvalloc(100));
}

extern "C" TARGET_FRAME void heap_memalign_small() {
  drop(memalign(8, 1000));
}

extern "C" TARGET_FRAME void heap_operator_new() {
  char* p = new char[1000];
  g_sink = p;
  delete[] p;
}

extern "C" TARGET_FRAME void heap_round() {
  heap_keep_big();
  heap_keep_aligned();
  heap_keep_realloc();
  heap_free_all();
  heap_realloc_away();
  heap_memalign();
  heap_aligned_alloc();
  heap_valloc();
  heap_pvalloc();
  heap_memalign_small();
  heap_operator_new();
}

int main(int argc, char** argv) {
  int threads = 2;
  long rounds = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string o = argv[i];
    if (o == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (o == "--rounds")
      rounds = std::atol(argv[i + 1]);
  }
  std::vector<std::thread> workers;
  std::vector<std::vector<void*>> kept(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    kept[static_cast<size_t>(t)].reserve(static_cast<size_t>(rounds) * 3);
    workers.emplace_back([&, t] {
      char name[16];
      std::snprintf(name, sizeof name, "heap-%d", t);
      pthread_setname_np(pthread_self(), name);
      g_kept = &kept[static_cast<size_t>(t)];
      g_state.wait(0);
      if (g_state.load() == 1)
        for (long r = 0; r < rounds; ++r) heap_round();
    });
  }
  std::printf("ready %d\nfree %p\n", getpid(), dlsym(RTLD_DEFAULT, "free"));
  std::fflush(stdout);
  char line[64];
  const bool go =
      std::fgets(line, sizeof line, stdin) != nullptr && std::strncmp(line, "go", 2) == 0;
  g_state = go ? 1 : 2;
  g_state.notify_all();
  for (std::thread& w : workers) w.join();
  if (go) {
    std::printf("done %ld\n", rounds * threads);
    std::fflush(stdout);
  }
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
  }
  return 0;  // the kept blocks are never freed
}
