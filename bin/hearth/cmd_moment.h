// `hearth heatmap FILE --moment TIME -o moment.txt|.svg|.png|.pdf` (or -o - for the text on
// standard output): the moment view (render/moment) of the sample nearest TIME, for places
// without a browser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/pattern.h"
#include "formats/timed_samples.h"

namespace hearth::cli {

// TIME as given: seconds since time 0 ("12.5"), or a wall time in ISO 8601
// ("2026-01-01T12:00:01.5", local time; with Z or +HH:MM, that zone).
struct MomentTime {
  bool wall = false;
  uint64_t ns = 0;       // since time 0 (!wall)
  int64_t wall_ns = 0;   // since the epoch (wall)
};
std::optional<MomentTime> parse_moment_time(const std::string& s);

// Whether OUT is an output --moment writes: - .txt .svg .png .pdf.
bool moment_output_ok(const std::string& out);

// Writes the moment; returns the exit code (as run_heatmap).
int run_moment(const timed_samples::Samples& samples, const std::string& path, const MomentTime& t,
               const Pattern* only, const std::string& output, double width, double scale);

}  // namespace hearth::cli
