// What one read of `hearth watch`'s cpu and sched: signals costs (watch/proc_signals.h): a
// child process with N threads asleep in a futex wait, read RUNS times SPACING ms apart; prints
// the reader's CPU time per read (CLOCK_THREAD_CPUTIME_ID: user + system, µs): median, mean
// (with the stat refreshes, one read in 5 s) and worst, and the mean per thread; each N twice:
// files kept open between reads (the default) and opened and closed at every read. Beside each
// read, what hearth watch's scheduler ring (watch/sched_ring.h) adds: SchedRing::add of the read
// (median, µs), and for a 10-minute ring of that read (600 copies, 1 s apart) its memory and one
// untraced_slots() over it (what a trigger costs, ms).
// Usage: proc_signals_bench [RUNS [SPACING_MS [N…]]] (default 30, 250, 100 1000).
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "watch/proc_signals.h"
#include "watch/sched_ring.h"

namespace {

int64_t clock_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A child with THREADS threads (the main one included) asleep until killed. Returns its pid
// once every thread is started (a pipe byte).
pid_t start_target(int threads) {
  int ready[2];
  if (pipe(ready) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    static std::mutex mutex;
    static std::condition_variable never;
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) {
      pool.emplace_back([] {
        std::unique_lock lock(mutex);
        never.wait(lock, [] { return false; });
      });
      pthread_setname_np(pool.back().native_handle(), ("worker-" + std::to_string(i)).c_str());
    }
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  if (read(ready[0], &byte, 1) != 1) std::abort();
  close(ready[0]);
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  const int spacing_ms = argc > 2 ? std::atoi(argv[2]) : 250;
  std::vector<int> sizes;
  for (int i = 3; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {100, 1000};
  std::printf(
      "threads\tfiles\treads\tcpu_us_median\tcpu_us_mean\tcpu_us_max\tcpu_us_per_thread"
      "\twall_us_median\tring_add_us_median\tring_600s_mb\tring_600s_slots_ms\n");
  for (const int n : sizes) {
    for (const bool kept : {true, false}) {
      const pid_t pid = start_target(n);
      hearth::watch::ProcSignals signals =
          kept ? hearth::watch::ProcSignals() : hearth::watch::ProcSignals(0);
      std::vector<int64_t> cpu, wall, ring_add;
      hearth::watch::SchedRing ring;
      hearth::watch::ProcSample last;
      size_t seen = 0;
      for (int r = 0; r <= runs; ++r) {
        const int64_t c0 = clock_of(CLOCK_THREAD_CPUTIME_ID), w0 = clock_of(CLOCK_MONOTONIC);
        const auto sample = signals.read({pid}, w0);
        const int64_t c1 = clock_of(CLOCK_THREAD_CPUTIME_ID), w1 = clock_of(CLOCK_MONOTONIC);
        seen = sample.threads.size();
        ring.add(sample);
        const int64_t c2 = clock_of(CLOCK_THREAD_CPUTIME_ID);
        if (r > 0) {  // the first read fills the tables: not the steady cost
          cpu.push_back(c1 - c0);
          wall.push_back(w1 - w0);
          ring_add.push_back(c2 - c1);
        }
        last = sample;
        std::this_thread::sleep_for(std::chrono::milliseconds(spacing_ms));
      }
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      // A 10-minute ring of the last read, and a trigger's slots over all of it.
      hearth::watch::SchedRing full;
      last.interval_s = 1;
      for (auto& t : last.threads) t.span_s = 1;
      const int64_t t0 = last.t_ns;
      for (int k = 1; k <= 600; ++k) {
        last.t_ns = t0 + int64_t{k} * 1'000'000'000;
        full.add(last);
      }
      const int64_t s0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
      const auto slots = full.untraced_slots(static_cast<uint64_t>(t0),
                                             static_cast<uint64_t>(last.t_ns), 1'000'000'000);
      const int64_t s1 = clock_of(CLOCK_THREAD_CPUTIME_ID);
      if (slots.slots.empty()) std::abort();
      std::sort(ring_add.begin(), ring_add.end());
      std::sort(cpu.begin(), cpu.end());
      std::sort(wall.begin(), wall.end());
      double mean = 0;
      for (const int64_t c : cpu) mean += static_cast<double>(c) / 1e3;
      mean /= static_cast<double>(cpu.size());
      std::printf("%zu\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.0f\t%.1f\t%.1f\t%.0f\n", seen,
                  kept ? "kept" : "opened", runs, static_cast<double>(cpu[cpu.size() / 2]) / 1e3,
                  mean, static_cast<double>(cpu.back()) / 1e3, mean / static_cast<double>(seen),
                  static_cast<double>(wall[wall.size() / 2]) / 1e3,
                  static_cast<double>(ring_add[ring_add.size() / 2]) / 1e3,
                  static_cast<double>(full.bytes()) / 1e6, static_cast<double>(s1 - s0) / 1e6);
    }
  }
  return 0;
}
