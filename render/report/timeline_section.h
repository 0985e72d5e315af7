// The report's timeline section: a report directory's scheduler intervals (sched.intervals.tsv,
// with its slots, names and timed stack samples beside it) drawn as timeline.svg (the static
// lanes, shown in the page; pools as one lane when the threads are many) and timeline.html (the
// interactive timeline: zoom, hover, a sample's stack, the moment link into heat.html), both
// beside the other pictures (render/timeline).
#pragma once

#include <string>
#include <vector>

namespace hearth::report {

inline constexpr const char* kTimelineHtml = "timeline.html";
inline constexpr const char* kTimelineSvg = "timeline.svg";

struct TimelineSection {
  std::string body;                   // the section's HTML; empty: no intervals in DIR
  std::vector<std::string> pictures;  // files written
  std::vector<std::string> problems;  // one line each, e.g. a damaged file (the rest drawn)
};

// Reads DIR's intervals (and what goes with them) and writes timeline.html and timeline.svg
// (WIDTH px) into DIR, atomically. HEATMAP: the heatmap page's file name when the report has
// one (the moment link), else empty.
TimelineSection timeline_section(const std::string& dir, const std::string& target, double width,
                                 const std::string& heatmap);

}  // namespace hearth::report
