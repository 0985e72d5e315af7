// The sample workload's runtime: shutdown flag, clock, jitter, and a sink that keeps work alive.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

// A frame that shows in every stack under its own name: never inlined, cloned or merged.
#define SAMPLE_FRAME __attribute__((noipa))

namespace sample {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Shutdown: one flag, and a condition variable that wakes every timed wait at once.

inline std::atomic<bool> g_stop{false};
inline std::mutex g_stop_mutex;
inline std::condition_variable g_stop_cv;

inline bool stopping() {
  return g_stop.load(std::memory_order_relaxed);
}

inline void request_stop() {
  {
    std::lock_guard lock(g_stop_mutex);
    g_stop.store(true);
  }
  g_stop_cv.notify_all();
}

inline uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

// Random durations in [lo, hi], uniformly (xorshift, seeded from the thread id).
class Jitter {
 public:
  Jitter(std::chrono::microseconds lo, std::chrono::microseconds hi)
      : lo_(lo.count()),
        span_(static_cast<uint64_t>(hi.count() - lo.count()) + 1),
        x_(static_cast<uint64_t>(gettid()) * 0x9E3779B97F4A7C15ull | 1) {}
  std::chrono::microseconds next() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return std::chrono::microseconds(lo_ + static_cast<int64_t>(x_ % span_));
  }

 private:
  int64_t lo_;
  uint64_t span_;
  uint64_t x_;
};

// Keeps a computed value alive so the optimiser cannot drop the work that made it.
inline volatile uint64_t g_sink;
inline void keep(uint64_t v) {
  g_sink = g_sink + v;
}

}  // namespace sample
