// A process whose threads are never named (every one keeps the process's comm), each started
// in a function of its own: the case thread roles are for (collectors/stacks/thread_roles.h).
//
//   roles_target [--pool N]
//
// Threads, by the function each was started in (none calls pthread_setname_np or prctl):
//   ingest_main  pthread_create; waits on a condition variable that is never notified
//   flush_main   std::thread (its plumbing, _State_impl::_M_run and std::__invoke, is between
//                start_thread and it); sleeps in nanosleep
//   pool_main    N threads (--pool, 2 by default) of pthread_create; wait on a condition variable
//   pause_main   pthread_create; blocks in pause(2) through its own `syscall` instruction, with no
//                libc function on its stack: in a stripped copy no frame of it has a name
// The *_main functions are never inlined, cloned or tail-called: their names appear exactly so.
//
// Protocol: prints "ready PID" once every thread sleeps at its wait, then one line per thread,
// "FUNCTION TID" (pool_main once per pool thread), then "end". Exits when stdin closes.
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/integration/targets/target_frame.h"

namespace {

std::mutex g_mutex;
std::condition_variable g_never;
std::mutex g_tids_mutex;
std::vector<std::pair<std::string, pid_t>> g_tids;  // function, tid: in start order

void started(const char* function) {
  std::lock_guard<std::mutex> lock(g_tids_mutex);
  g_tids.emplace_back(function, static_cast<pid_t>(syscall(SYS_gettid)));
}

char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

}  // namespace

extern "C" TARGET_FRAME void* ingest_main(void*) {
  started("ingest_main");
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) g_never.wait(lock);
}

TARGET_FRAME void flush_main(int period_ms) {
  started("flush_main");
  for (;;) {
    timespec ts{period_ms / 1000, (period_ms % 1000) * 1000000L};
    nanosleep(&ts, nullptr);
  }
}

extern "C" TARGET_FRAME void* pool_main(void*) {
  started("pool_main");
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) g_never.wait(lock);
}

extern "C" TARGET_FRAME void* pause_main(void*) {
  started("pause_main");
  for (;;) {
#if defined(__x86_64__)
    long ret;
    asm volatile("syscall"
                 : "=a"(ret)
                 : "0"(static_cast<long>(SYS_pause))
                 : "rcx", "r11", "memory");
    (void)ret;
#else
    pause();
#endif
  }
}

int main(int argc, char** argv) {
  int pool = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--pool") == 0) pool = std::atoi(argv[i + 1]);
  }
  auto create = [](void* (*fn)(void*)) {
    pthread_t t;
    if (pthread_create(&t, nullptr, fn, nullptr) != 0) std::abort();
    pthread_detach(t);
  };
  create(ingest_main);
  std::thread(flush_main, 60000).detach();
  for (int i = 0; i < pool; ++i) create(pool_main);
  create(pause_main);
  const size_t threads = 3 + static_cast<size_t>(pool);

  // Ready when every thread has started and sleeps at its wait.
  for (;;) {
    bool all = false;
    {
      std::lock_guard<std::mutex> lock(g_tids_mutex);
      all = g_tids.size() == threads;
      for (size_t i = 0; all && i < g_tids.size(); ++i) all = thread_state(g_tids[i].second) == 'S';
    }
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("ready %d\n", getpid());
  {
    std::lock_guard<std::mutex> lock(g_tids_mutex);
    for (const auto& [function, tid] : g_tids) std::printf("%s %d\n", function.c_str(), tid);
  }
  std::printf("end\n");
  std::fflush(stdout);
  char buffer[256];
  while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
  }
  std::_Exit(0);  // stdin closed
}
