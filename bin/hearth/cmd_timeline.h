// `hearth timeline DIR|FILE…`: every thread of a recording on one time axis, a lane each,
// coloured by scheduler state (sched.intervals.tsv, and sched.slots.tsv before the part kept
// whole), with each timed stack sample as a tick on its lane: an interactive page (.html: zoom
// to microseconds, hover for state, duration, CPU, preemptor or waker, click a tick for its
// stack) or a static picture (.svg, .png, .pdf). render/timeline.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace hearth::cli {

struct TimelineArgs {
  std::vector<std::string>
      inputs;                  // a report directory, or files (a sched.intervals.tsv among them)
  std::string output;          // .html .svg .png .pdf
  bool group_threads = false;  // pools as one lane (pictures); grouped at first (page)
  std::string only_threads;
  double from = std::numeric_limits<double>::quiet_NaN();  // s since time 0; NaN: the start
  double to = std::numeric_limits<double>::quiet_NaN();    // s; NaN: the end
  std::string title;
  std::string heatmap;  // the moment link's page; empty: heat.html when beside the output
  double width = 1200;
  double scale = 1;  // PNG pixel density
};

// Checks everything; returns every problem found (empty: fine).
std::vector<std::string> validate_timeline(const TimelineArgs& args);
// Runs the verb; returns the exit code (0, also when a damaged file was drawn up to its damage;
// 1 the output could not be written; 2 bad usage or input).
int run_timeline(const TimelineArgs& args);

}  // namespace hearth::cli
