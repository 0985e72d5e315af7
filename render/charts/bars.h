// A chart section of horizontal stacked bars, and its drawing into a scene. Every scheduler
// chart is one: a title, a line of recording facts, a legend, one bar per row (thread, CPU,
// preemptor) made of segments, and a time or percent axis.
//
// Scene contract with templates/chart.js (section N, 0-based, ids prefixed "sN-"):
// - texts: "sN-title", "sN-details" (the hover line), "sN-toggle" (the %/ms switch, hidden in
//   a static picture); axis labels have the classes "sN pct" or "sN ms" (the view they belong
//   to; the other view's are "hide");
// - layers "sN-grid" (axis lines), "sN-bars" (segments), "sN-legend";
// - in a two-view section every grid line and segment carries data-ms="X W" (px): its
//   geometry in the time view; the scene's own x and w are the percent view. A grid line that
//   exists in one view only has width 0 in the other.
#pragma once

#include <string>
#include <vector>

#include "render/scene/scene.h"

namespace hearth::charts {

struct Segment {
  double value = 0;  // ns; segments of value <= 0 are not drawn
  scene::Rgb fill;
  std::string title;      // tooltip
  std::string label;      // drawn inside when it fits in both views; may be empty
  std::string css_class;  // e.g. "runnable"
};

struct Bar {
  std::string label;  // left of the bar, right-aligned; elided to fit
  std::string note;   // right of the bar; empty: none
  // SVG id of the bar's row, a link target ("sched.svg#thread-42": chart.js highlights the row
  // named by the URL fragment); empty: none. Unique in the picture.
  std::string anchor;
  std::vector<Segment> segments;  // left to right
};

struct LegendEntry {
  std::string label;
  scene::Rgb fill;
};

enum class Views : uint8_t {
  kPercentAndTime,  // static: each bar normalised to 100%; the script switches to time
  kTime,            // time only: bar length = sum of its segments on the full_ns scale
};

struct Section {
  std::string title;
  std::string subtitle;  // recording facts
  bool warn = false;     // subtitle drawn as a warning (lost events)
  std::vector<LegendEntry> legend;
  std::vector<Bar> bars;  // top to bottom
  Views views = Views::kTime;
  double full_ns = 0;    // time view: the ns the full bar width stands for (> 0)
  std::string footnote;  // below the axis; empty: none
};

// Geometry facts for tests and messages.
struct SectionGeometry {
  double bars_x = 0;      // px, where bars start
  double bars_width = 0;  // px, the 100% / full_ns width
  double pitch = 0;       // px from one bar to the next
  double bar_height = 0;  // px
};

// Draws SECTION into SCENE (width already set) from *Y down, as section INDEX; advances *Y.
// Bars get from 22 px down to 10 px each as their number grows, then the section grows.
SectionGeometry draw_section(const Section& section, int index, scene::Scene* scene, double* y);

}  // namespace hearth::charts
