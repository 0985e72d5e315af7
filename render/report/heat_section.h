// The report's heatmap section: a report directory's timed stack samples (stacks.samples.txt,
// or the raw samples stacks.raw.txt of older recordings) drawn as heat.svg (the static grid,
// shown in the page) and heat.html (the interactive heatmap: range -> flamegraph, moment view),
// both beside flame.svg (render/time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/report/report.h"  // kStacksSamples, kStacksRaw

namespace hearth::report {

inline constexpr const char* kHeatHtml = "heat.html";
inline constexpr const char* kHeatSvg = "heat.svg";

struct HeatSection {
  bool present = false;               // the directory has samples to draw
  std::string body;                   // the section's HTML
  std::vector<std::string> pictures;  // files written
  std::vector<std::string> problems;  // one line each, e.g. a damaged file (the rest drawn)
  uint64_t mono_ns = 0;               // the samples' time 0 on CLOCK_MONOTONIC; 0: not recorded
  uint64_t real_ns = 0;               // and on CLOCK_REALTIME; 0: not recorded
};

// Reads DIR's samples and writes heat.html and heat.svg (WIDTH px) into DIR, atomically.
HeatSection heat_section(const std::string& dir, const std::string& target, double width);

}  // namespace hearth::report
