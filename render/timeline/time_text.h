// Times as the timeline writes them, in the static picture and its messages (templates/timeline.js
// writes the same on the page).
#pragma once

#include <cstdint>
#include <string>

namespace hearth::timeline {

// A duration for people: "850 ns", "12.5 µs", "3.2 ms", "1.25 s", "2 min 5 s", "1 h 2 min".
std::string duration_text(uint64_t ns);

// The axis step: 1, 2 or 5 times a power of ten ns, the smallest that puts ticks at least
// MIN_PX apart over SPAN_NS drawn in WIDTH_PX.
uint64_t tick_step(uint64_t span_ns, double width_px, double min_px);

// An axis label: T_NS in seconds with as many decimals as STEP_NS needs: "12 s", "12.5 s",
// "0.0125 s".
std::string seconds_text(int64_t t_ns, uint64_t step_ns);

// The wall clock at REAL_NS (ns since the epoch), UTC: "14:03:05", with milliseconds
// ("14:03:05.250") or microseconds when STEP_NS is below a second or a millisecond.
std::string wall_clock_text(uint64_t real_ns, uint64_t step_ns);

}  // namespace hearth::timeline
