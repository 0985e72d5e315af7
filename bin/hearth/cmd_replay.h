// `hearth replay DIR|FILE`: a recording's timed stack samples played back in the live view of
// `hearth stacks`, with a state line per thread and transport keys (render/replay). On a
// terminal: the replay; otherwise (or with -o) the view at one instant, printed once.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace hearth::cli {

inline constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

struct ReplayArgs {
  std::string input;   // a report directory (stacks.samples.txt, else stacks.raw.txt) or a file
  std::string output;  // the view printed once to this file ("-": stdout); no terminal replay
  double speed = 1;
  double from = kUnset, to = kUnset;  // s since the recording's time 0: the range replayed
  double at = kUnset;  // s: printed: the view then; on a terminal: start there, paused
  bool loop = false;
  double window = 1;  // s: the stacks counted over the samples this long before; 0: since --from
};

std::vector<std::string> validate_replay(const ReplayArgs& args);
// Runs the verb; returns the exit code (0, 1 runtime failure, 2 bad usage or input).
int run_replay(const ReplayArgs& args);

}  // namespace hearth::cli
