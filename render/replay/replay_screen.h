// What `hearth replay` shows at a round: the live view's screen (render/live) with the
// recording's time in the header and a state line per thread. Pure: text from the samples, the
// window at the round and, on a terminal, the transport.
//
//   hearth replay  pid 42 (app)  +3.200 s  2026-11-29 12:34:56.789 UTC  x1 playing  10 samples x
//   3 threads in 1 s  stall median 0.04 ms, max 0.10 ms  keys: space <- -> [ ] l g q
#pragma once

#include <cstdint>
#include <string>

#include "render/replay/sample_window.h"
#include "render/replay/transport.h"

namespace hearth::replay {

// The header's line. TRANSPORT: nullptr when printed once (not on a terminal): no speed, loop or
// keys then. WINDOW_NS as given to the window (0: since the replay's start).
std::string replay_header(const Samples& samples, const SampleWindow& window,
                          const Transport* transport, uint64_t window_ns);

// The whole screen, COLS x ROWS as live::render() lays it out. The threads' lines: those in
// uninterruptible sleep (D) first, then running (R), then the others; by tid within each.
std::string replay_screen(const Samples& samples, const SampleWindow& window,
                          const Transport* transport, uint64_t window_ns, int cols, int rows);

// "12:34:56.789": the recording's time 0 + TIME_NS on the wall clock, local time, with the
// date and the zone: "2026-11-29 12:34:56.789 UTC"; empty when Samples::real_ns is unknown.
std::string wall_clock(const Samples& samples, uint64_t time_ns);

}  // namespace hearth::replay
