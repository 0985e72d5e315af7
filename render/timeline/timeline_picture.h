// The timeline's static picture: a Model -> a scene (kind "timelanes": an SVG whose lanes name
// themselves on hover, templates/timelanes.js; PNG and PDF through Cairo), for places without a
// browser. From the top: the time axis (seconds from the start, and the wall clock when the
// samples give it), which part is whole intervals and which is slots, the all-threads lane
// (how many threads are in each state, stacked), then a lane per thread (or per pool), a
// process's lanes under its name.
//
// Where whole intervals were kept, a lane is drawn one pixel column at a time, each column in
// the state its thread spent the most time in there, activity (on CPU, runnable, blocked,
// stopped) counted 4 times: a thread that ran a fifth of a column shows running. Where only
// slots were kept, each slot is a stacked bar of its states' shares. Sample ticks are a dark
// strip along the lane's top over the columns that have a sample.
#pragma once

#include <string>
#include <vector>

#include "render/scene/scene.h"
#include "render/timeline/lanes.h"

namespace hearth::timeline {

struct PictureOptions {
  std::string title = "Timeline";
  std::string subtitle;      // empty: what was drawn, in numbers
  double width = 1200;       // px
  bool group_pools = false;  // a pool's threads as one lane (their times summed)
  // The range drawn, CLOCK_MONOTONIC ns; 0: the model's domain.
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
  // Lines said under the subtitle, in the warning colour: "sched.intervals.tsv:21: ... (drawn
  // up to there)".
  std::vector<std::string> notes;
};

scene::Scene layout_timeline(const Model& model, const PictureOptions& options);

// The wall clock at the model's start, ns since the epoch, from the samples' real_ns; 0 when
// unknown.
uint64_t start_real_ns(const Model& model);

}  // namespace hearth::timeline
