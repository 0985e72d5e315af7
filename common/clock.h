// The clocks hearth reads, in nanoseconds. CLOCK_MONOTONIC is the clock of every window and
// event time (the kernel's trace clock "mono" matches it); CLOCK_REALTIME only labels outputs.
#pragma once

#include <time.h>

#include <cstdint>

namespace hearth {

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t monotonic_ns() {
  return clock_ns(CLOCK_MONOTONIC);
}
inline uint64_t realtime_ns() {
  return clock_ns(CLOCK_REALTIME);
}

// Sleeps NS nanoseconds; a signal (a shutdown request) ends the nap early.
inline void sleep_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000u), static_cast<long>(ns % 1'000'000'000u)};
  ::nanosleep(&ts, nullptr);
}

}  // namespace hearth
