// A process whose threads are parked in known places, moved on command, so a test knows what
// every thread was doing at any instant (the moment view, formats/timed_samples.h moment()).
//
//   moment_target [--workers N]      (N >= 2, 4 by default)
//
// Workers mw-0 … mw-(N-1), in three phases:
//   1  every worker waits on a condition variable in wait_for_work
//   2  even workers block on a mutex the main thread holds, in take_lock; odd workers block
//      reading an empty pipe, in read_pipe
//   3  every worker sleeps in nap (nanosleep)
// Protocol: prints "ready PID", then "mw-I TID" per worker, then "phase 1 MONO_NS" once every
// worker sleeps at its phase-1 wait. Each line "next" on stdin moves to the next phase and,
// once every worker sleeps at its new place, prints "phase K MONO_NS" (CLOCK_MONOTONIC ns).
// From that time until the next "next" is written, every worker is where the phase says.
// Exits when stdin closes. The functions named above are never inlined or cloned.
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
#include <vector>

#include "tests/integration/targets/target_frame.h"

namespace {

std::mutex g_phase_mutex;
std::condition_variable g_phase_cv;
int g_phase = 1;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
int g_pipe[2];
std::vector<std::atomic<int>>* g_at;  // per worker: the phase it is about to wait in
std::vector<pid_t> g_tids;

char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

unsigned long long mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1000000000ULL +
         static_cast<unsigned long long>(ts.tv_nsec);
}

// Every worker has said it waits in PHASE and sleeps.
void wait_until_parked(int phase) {
  for (;;) {
    bool all = true;
    for (size_t i = 0; all && i < g_tids.size(); ++i) {
      all = (*g_at)[i].load() == phase && thread_state(g_tids[i]) == 'S';
    }
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

extern "C" TARGET_FRAME void wait_for_work(int i) {
  (*g_at)[i] = 1;
  std::unique_lock<std::mutex> lock(g_phase_mutex);
  g_phase_cv.wait(lock, [] { return g_phase >= 2; });
}

extern "C" TARGET_FRAME void take_lock(int i) {
  (*g_at)[i] = 2;
  pthread_mutex_lock(&g_lock);
  pthread_mutex_unlock(&g_lock);
}

extern "C" TARGET_FRAME void read_pipe(int i) {
  (*g_at)[i] = 2;
  char c;
  while (read(g_pipe[0], &c, 1) != 1) {
  }
}

extern "C" TARGET_FRAME void nap(int i) {
  (*g_at)[i] = 3;
  for (;;) {
    timespec ts{3600, 0};
    nanosleep(&ts, nullptr);
  }
}

extern "C" TARGET_FRAME void* worker_main(void* arg) {
  const int i = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  std::string name = "mw-" + std::to_string(i);
  pthread_setname_np(pthread_self(), name.c_str());
  g_tids[static_cast<size_t>(i)] = static_cast<pid_t>(syscall(SYS_gettid));
  wait_for_work(i);
  if (i % 2 == 0) {
    take_lock(i);
  } else {
    read_pipe(i);
  }
  nap(i);
  return nullptr;
}

int main(int argc, char** argv) {
  int workers = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--workers") == 0) workers = std::atoi(argv[i + 1]);
  }
  if (workers < 2 || pipe(g_pipe) != 0) return 2;
  std::vector<std::atomic<int>> at(static_cast<size_t>(workers));
  g_at = &at;
  g_tids.assign(static_cast<size_t>(workers), 0);
  for (int i = 0; i < workers; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, worker_main,
                       reinterpret_cast<void*>(static_cast<intptr_t>(i))) != 0)
      std::abort();
    pthread_detach(t);
  }
  wait_until_parked(1);
  std::printf("ready %d\n", getpid());
  for (int i = 0; i < workers; ++i) std::printf("mw-%d %d\n", i, g_tids[static_cast<size_t>(i)]);
  std::printf("phase 1 %llu\n", mono_ns());
  std::fflush(stdout);
  std::string line;
  char c;
  int phase = 1;
  while (read(STDIN_FILENO, &c, 1) == 1) {
    if (c != '\n') {
      line += c;
      continue;
    }
    if (line == "next" && phase < 3) {
      ++phase;
      if (phase == 2) {
        pthread_mutex_lock(&g_lock);
        {
          std::lock_guard<std::mutex> lock(g_phase_mutex);
          g_phase = 2;
        }
        g_phase_cv.notify_all();
      } else {
        std::string bytes(static_cast<size_t>(workers), 'x');
        if (write(g_pipe[1], bytes.data(), bytes.size()) < 0) return 1;
        pthread_mutex_unlock(&g_lock);
      }
      wait_until_parked(phase);
      std::printf("phase %d %llu\n", phase, mono_ns());
      std::fflush(stdout);
    }
    line.clear();
  }
  std::_Exit(0);  // stdin closed
}
