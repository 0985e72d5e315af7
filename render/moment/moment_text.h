// The moment (moment.h) in words: the plain text of `hearth heatmap --moment T -o moment.txt`,
// and the words the picture (moment_picture.h) draws. Each group's head line is the text of the
// page's moment view's summary (templates/heatmap.js): "3 threads waiting here · lock wait, S ·
// for up to 1.2 s · in futex_wait_[k]"; then its stack, leaf first; then its threads, as the
// page lists them: "[worker-1 tid=4243] (tid 4243): S for 250 ms".
//
//   Moment: 1.5 s (2026-01-01T12:00:01.500Z), pid 4242
//   Sample 16 of 40: 12 threads in 3 groups
//
//   3 threads waiting here · lock wait, S · for up to 1.2 s · in futex_wait_[k]
//       futex_wait_[k]
//       ...                  (the stack, leaf first)
//     [worker-1 tid=4243] (tid 4243): S for 250 ms
//     ...                    (the threads)
#pragma once

#include <string>

#include "formats/timed_samples.h"
#include "render/moment/moment.h"

namespace hearth::moment {

// As the page's durationText (JavaScript toFixed, trailing zeros dropped): "1.25 s", "3 ms",
// "12.5 µs", "2.5 min", "1.1 h", "850 ns".
std::string duration_text(uint64_t ns);

// "Moment: 1.5 s (WALL), pid P" (WALL: the wall clock in UTC, ISO 8601, when the file has it).
std::string title_text(const timed_samples::Samples& samples, const Moment& m);
// "Sample 16 of 40: 12 threads in 3 groups".
std::string info_text(const timed_samples::Samples& samples, const Moment& m);
// A group's head line, as the page's summary.
std::string head_text(const timed_samples::Samples& samples, const Group& g);
// A thread's line, as the page lists it (without indentation).
std::string thread_text(const timed_samples::Samples& samples, const Group& g, const ThreadAt& t);
// The leaf frame of the group's stack, or "(no frames)".
std::string leaf_text(const timed_samples::Samples& samples, const Group& g);

// The whole text, as above, ending in a newline.
std::string moment_text(const timed_samples::Samples& samples, const Moment& m);

}  // namespace hearth::moment
