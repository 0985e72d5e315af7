// Scheduler scenarios for `hearth sched` tests and benchmarks.
//
//   sched_target [--hogs N] [--hog-cpu C] [--sleeper] [--sleeper-cpu CPU] [--pinned CPU]
//                [--late-on-input] [--realtime]
//
// --hogs N: N threads "hog-I" spinning, all pinned to CPU C (default 0): each is mostly
//   preempted (runnable), by the others.
// --sleeper: a thread "sleeper" sleeping 20 ms at a time (mostly S); --sleeper-cpu CPU pins it.
// --pinned CPU: a thread "pinned" spinning alone on CPU (tenancy ~100% there).
// --realtime: the hogs run SCHED_RR (priority 1) and the sleeper SCHED_FIFO (priority 2), so
//   the hogs take turns every RR slice (100 ms) whatever else the machine runs, and the sleeper
//   preempts them each time it wakes: the same picture on a loaded machine as on an idle one.
// --late-on-input: when an 'L' comes on stdin, a thread "late" appears (the test says when:
//   once hearth traces, however late a loaded machine lets it start); it sleeps 1 ms at a time
//   and spins a little between sleeps (so it switches in and out).
// Prints "ready PID" once every thread runs, "late TID NS" when the late thread starts (NS:
// CLOCK_MONOTONIC right before its creation); exits when stdin closes (the main thread blocks
// reading it).
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
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
bool g_realtime = false;

// SCHED_RR/SCHED_FIFO at PRIORITY for the calling thread under --realtime; exits when refused.
void go_realtime(int policy, int priority) {
  if (!g_realtime) return;
  sched_param p{};
  p.sched_priority = priority;
  if (int e = pthread_setschedparam(pthread_self(), policy, &p); e != 0) {
    std::fprintf(stderr, "pthread_setschedparam: %s\n", std::strerror(e));
    std::exit(2);
  }
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
}

void name_self(const std::string& name) {
  pthread_setname_np(pthread_self(), name.c_str());
}

[[noreturn]] void spin_forever() {
  unsigned long x = 1;
  for (;;) g_sink = x = x * 6364136223846793005ul + 1;
}

void sleep_us(long us) {
  timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, nullptr);
}

void hog_main(int index, int cpu) {
  name_self("hog-" + std::to_string(index));
  pin_to(cpu);
  go_realtime(SCHED_RR, 1);
  g_started.fetch_add(1);
  spin_forever();
}

void pinned_main(int cpu) {
  name_self("pinned");
  pin_to(cpu);
  g_started.fetch_add(1);
  spin_forever();
}

void sleeper_main(int cpu) {
  name_self("sleeper");
  if (cpu >= 0) pin_to(cpu);
  go_realtime(SCHED_FIFO, 2);
  g_started.fetch_add(1);
  for (;;) sleep_us(20000);
}

void late_main(long long created_ns) {
  name_self("late");
  std::printf("late %ld %lld\n", static_cast<long>(syscall(SYS_gettid)), created_ns);
  std::fflush(stdout);
  for (;;) {
    unsigned long x = 1;
    for (int i = 0; i < 20000; ++i) g_sink = x = x * 6364136223846793005ul + 1;
    sleep_us(1000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int hogs = 0, hog_cpu = 0, pinned = -1, sleeper_cpu = -1;
  bool sleeper = false, late_on_input = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::strtol(argv[++i], nullptr, 10);
    };
    if (a == "--hogs") {
      hogs = static_cast<int>(next());
    } else if (a == "--hog-cpu") {
      hog_cpu = static_cast<int>(next());
    } else if (a == "--pinned") {
      pinned = static_cast<int>(next());
    } else if (a == "--late-on-input") {
      late_on_input = true;
    } else if (a == "--sleeper-cpu") {
      sleeper_cpu = static_cast<int>(next());
    } else if (a == "--sleeper") {
      sleeper = true;
    } else if (a == "--realtime") {
      g_realtime = true;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  int expected = hogs + (sleeper ? 1 : 0) + (pinned >= 0 ? 1 : 0);
  for (int i = 0; i < hogs; ++i) std::thread(hog_main, i, hog_cpu).detach();
  if (sleeper) std::thread(sleeper_main, sleeper_cpu).detach();
  if (pinned >= 0) std::thread(pinned_main, pinned).detach();
  while (g_started.load() < expected) sleep_us(1000);
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
    if (c == 'L' && late_on_input) {
      late_on_input = false;  // one
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);  // just before the clone: the fork comes after
      std::thread(late_main, now.tv_sec * 1000000000ll + now.tv_nsec).detach();
    }
  }
  return 0;
}
