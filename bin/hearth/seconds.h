// Time options given in seconds (--from, --to, --at, --window, ...): NaN when not given, checked
// against one bound, turned into nanoseconds one way.
#pragma once

#include <cmath>
#include <cstdint>

namespace hearth::cli {

// Far past any recording (400 days): keeps every such option's nanoseconds in range.
constexpr double kMaxSeconds = 400 * 24 * 3600.0;

// Whether an option that defaults to NaN was given.
inline bool given(double seconds) {
  return !std::isnan(seconds);
}

// SECONDS (0 to kMaxSeconds) in whole nanoseconds, rounded to the nearest.
inline uint64_t seconds_to_ns(double seconds) {
  return static_cast<uint64_t>(std::llround(seconds * 1e9));
}

}  // namespace hearth::cli
