// A process for the stack sampler to sample: N named threads at a known stack depth, some
// spinning, some blocked, and a heartbeat thread that measures the stall the process suffers.
//
//   stack_target --threads N --depth D --spin K [--report FILE] [--dstate MS]
//
// Threads (names as pthread_setname_np sets them):
//   spin-I   K threads burning CPU in leaf_spin
//   mutex-I  half of the other N-K, blocked in leaf_mutex on a std::mutex that `holder` keeps
//   cond-I   the rest, waiting in leaf_cond on a std::condition_variable that is never notified
//   holder   holds the mutex (not counted in N)
//   heartbeat  sleeps ~100 µs in a loop (SCHED_FIFO when permitted) and records the longest
//            gap beyond its sleep: the stall the process suffered
//   dstate   only with --dstate MS: repeatedly vfork()s a child that sleeps MS ms, so this
//            thread sits in uninterruptible sleep ('D', TASK_KILLABLE in vfork) most of the time
// Each worker's stack, root first: start_thread … worker_main → level_0 → … → level_{D-1} →
// leaf → leaf_{spin,mutex,cond} (→ libc). level_*, leaf and leaf_* are extern "C", never
// inlined, cloned or tail-called, so their names appear exactly so in both builds.
//
// Protocol: prints "ready PID" on stdout once every worker is at its leaf (blocked workers in
// 'S' state). On SIGUSR1 writes "max_gap_us N" (and resets it) to stdout, or to FILE when
// --report is given (written to FILE.tmp, then renamed). Exits on SIGTERM or when stdin closes.
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

enum Kind { kSpin = 0, kMutex = 1, kCond = 2 };

std::mutex g_contended;
std::mutex g_cond_mutex;
std::condition_variable g_cond;
std::atomic<int> g_at_leaf{0};
std::atomic<long> g_max_gap_ns{0};
volatile unsigned long g_sink;

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

extern "C" {

TARGET_FRAME int leaf_spin(int) {
  g_at_leaf.fetch_add(1);
  unsigned long x = 1;
  for (;;) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    g_sink = x;
  }
}

TARGET_FRAME int leaf_mutex(int) {
  g_at_leaf.fetch_add(1);
  g_contended.lock();  // held by `holder` forever
  g_contended.unlock();
  return 0;
}

TARGET_FRAME int leaf_cond(int) {
  g_at_leaf.fetch_add(1);
  std::unique_lock<std::mutex> lock(g_cond_mutex);
  g_cond.wait(lock, [] { return false; });
  return 0;
}

TARGET_FRAME int leaf(int kind) {
  int r = kind == kSpin ? leaf_spin(kind) : kind == kMutex ? leaf_mutex(kind) : leaf_cond(kind);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

// level_I(depth, kind) calls level_{I+1} until I + 1 == depth, then the leaf. The "+ 1" after
// each call keeps it from being a tail call.
#define TARGET_LEVEL(I, NEXT)                                          \
  TARGET_FRAME int level_##I(int depth, int kind) {                    \
    int r = (I) + 1 >= depth ? leaf(kind) : level_##NEXT(depth, kind); \
    __asm__ volatile("" ::: "memory");                                 \
    return r + 1;                                                      \
  }
TARGET_FRAME int level_63(int, int kind) {
  int r = leaf(kind);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}
// clang-format off
TARGET_LEVEL(62, 63) TARGET_LEVEL(61, 62) TARGET_LEVEL(60, 61) TARGET_LEVEL(59, 60)
TARGET_LEVEL(58, 59) TARGET_LEVEL(57, 58) TARGET_LEVEL(56, 57) TARGET_LEVEL(55, 56)
TARGET_LEVEL(54, 55) TARGET_LEVEL(53, 54) TARGET_LEVEL(52, 53) TARGET_LEVEL(51, 52)
TARGET_LEVEL(50, 51) TARGET_LEVEL(49, 50) TARGET_LEVEL(48, 49) TARGET_LEVEL(47, 48)
TARGET_LEVEL(46, 47) TARGET_LEVEL(45, 46) TARGET_LEVEL(44, 45) TARGET_LEVEL(43, 44)
TARGET_LEVEL(42, 43) TARGET_LEVEL(41, 42) TARGET_LEVEL(40, 41) TARGET_LEVEL(39, 40)
TARGET_LEVEL(38, 39) TARGET_LEVEL(37, 38) TARGET_LEVEL(36, 37) TARGET_LEVEL(35, 36)
TARGET_LEVEL(34, 35) TARGET_LEVEL(33, 34) TARGET_LEVEL(32, 33) TARGET_LEVEL(31, 32)
TARGET_LEVEL(30, 31) TARGET_LEVEL(29, 30) TARGET_LEVEL(28, 29) TARGET_LEVEL(27, 28)
TARGET_LEVEL(26, 27) TARGET_LEVEL(25, 26) TARGET_LEVEL(24, 25) TARGET_LEVEL(23, 24)
TARGET_LEVEL(22, 23) TARGET_LEVEL(21, 22) TARGET_LEVEL(20, 21) TARGET_LEVEL(19, 20)
TARGET_LEVEL(18, 19) TARGET_LEVEL(17, 18) TARGET_LEVEL(16, 17) TARGET_LEVEL(15, 16)
TARGET_LEVEL(14, 15) TARGET_LEVEL(13, 14) TARGET_LEVEL(12, 13) TARGET_LEVEL(11, 12)
TARGET_LEVEL(10, 11) TARGET_LEVEL(9, 10) TARGET_LEVEL(8, 9) TARGET_LEVEL(7, 8)
TARGET_LEVEL(6, 7) TARGET_LEVEL(5, 6) TARGET_LEVEL(4, 5) TARGET_LEVEL(3, 4)
TARGET_LEVEL(2, 3) TARGET_LEVEL(1, 2) TARGET_LEVEL(0, 1)
// clang-format on

}  // extern "C"

namespace {

constexpr int kMaxDepth = 64;

struct Options {
  int threads = 10;
  int depth = 10;
  int spin = 2;
  std::string report;
  int dstate_ms = 0;
};

TARGET_FRAME void worker_main(std::string name, int depth, int kind, std::atomic<pid_t>* tid) {
  pthread_setname_np(pthread_self(), name.c_str());
  tid->store(static_cast<pid_t>(syscall(SYS_gettid)));
  g_sink = static_cast<unsigned long>(level_0(depth, kind));  // used: not a tail call
}

void holder_main() {
  pthread_setname_np(pthread_self(), "holder");
  g_contended.lock();
  for (;;) pause();
}

void heartbeat_main() {
  pthread_setname_np(pthread_self(), "heartbeat");
  sched_param param = {};
  param.sched_priority = 10;
  (void)pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);  // best effort
  constexpr long kSleepNs = 100'000;
  for (;;) {
    uint64_t before = now_ns();
    timespec ts = {0, kSleepNs};
    nanosleep(&ts, nullptr);
    long gap = static_cast<long>(now_ns() - before) - kSleepNs;
    long seen = g_max_gap_ns.load(std::memory_order_relaxed);
    while (gap > seen && !g_max_gap_ns.compare_exchange_weak(seen, gap)) {
    }
  }
}

// Sits in vfork's wait (TASK_KILLABLE, shown as 'D') for MS ms at a time.
void dstate_main(int ms) {
  pthread_setname_np(pthread_self(), "dstate");
  for (;;) {
    pid_t child = vfork();
    if (child == 0) {
      // Only raw syscalls in the vfork child: it runs on our stack until it exits.
      timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
      syscall(SYS_nanosleep, &ts, nullptr);
      _exit(0);
    }
    (void)waitpid(child, nullptr, 0);
  }
}

char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

void report(const Options& options) {
  long gap_us = g_max_gap_ns.exchange(0) / 1000;
  std::string line = "max_gap_us " + std::to_string(gap_us < 0 ? 0 : gap_us) + "\n";
  if (options.report.empty()) {
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  std::string tmp = options.report + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return;
  std::fputs(line.c_str(), f);
  std::fclose(f);
  std::rename(tmp.c_str(), options.report.c_str());
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--threads")
      o->threads = std::atoi(value);
    else if (flag == "--depth")
      o->depth = std::atoi(value);
    else if (flag == "--spin")
      o->spin = std::atoi(value);
    else if (flag == "--report")
      o->report = value;
    else if (flag == "--dstate")
      o->dstate_ms = std::atoi(value);
    else
      return false;
  }
  return argc % 2 == 1 && o->threads >= 0 && o->spin >= 0 && o->spin <= o->threads &&
         o->depth >= 1 && o->depth <= kMaxDepth;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s --threads N --depth D(1..%d) --spin K [--report FILE] [--dstate MS]\n",
                 argv[0], kMaxDepth);
    return 2;
  }
  // Signals are read from a signalfd by the main thread; every thread inherits the mask.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGUSR1);
  sigaddset(&mask, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC);

  std::thread(holder_main).detach();
  while (g_contended.try_lock()) {  // wait until the holder has it
    g_contended.unlock();
    std::this_thread::yield();
  }
  std::vector<std::atomic<pid_t>> tids(static_cast<size_t>(options.threads));
  std::vector<int> kinds;
  int blocked = options.threads - options.spin;
  for (int i = 0; i < options.threads; ++i) {
    int kind = i < options.spin ? kSpin : (i - options.spin < blocked / 2 ? kMutex : kCond);
    int index = kind == kSpin    ? i
                : kind == kMutex ? i - options.spin
                                 : i - options.spin - blocked / 2;
    std::string name = std::string(kind == kSpin    ? "spin-"
                                   : kind == kMutex ? "mutex-"
                                                    : "cond-") +
                       std::to_string(index);
    kinds.push_back(kind);
    std::thread(worker_main, name, options.depth, kind, &tids[static_cast<size_t>(i)]).detach();
  }
  std::thread(heartbeat_main).detach();
  if (options.dstate_ms > 0) std::thread(dstate_main, options.dstate_ms).detach();

  // Ready when every worker reached its leaf and every blocked one sleeps in the kernel.
  for (;;) {
    bool all = g_at_leaf.load() == options.threads;
    for (int i = 0; all && i < options.threads; ++i) {
      pid_t tid = tids[static_cast<size_t>(i)].load();
      all = tid != 0 && (kinds[static_cast<size_t>(i)] == kSpin || thread_state(tid) == 'S');
    }
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  g_max_gap_ns.store(0);
  std::printf("ready %d\n", getpid());
  std::fflush(stdout);

  pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {sfd, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[0].revents != 0) {
      char buffer[256];
      if (read(STDIN_FILENO, buffer, sizeof buffer) <= 0) std::_Exit(0);  // stdin closed
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info;
      if (read(sfd, &info, sizeof info) != sizeof info) continue;
      if (info.ssi_signo == SIGTERM) std::_Exit(0);
      report(options);
    }
  }
}
