// The metrics chart's content: MMV series (formats/series_tsv.h) -> one Panel per metric, with what
// each panel plots. Geometry is metrics_chart.cpp's business; this decides values:
// - counters become rates per second between consecutive snapshots of one series; a counter
//   that goes down (a reset, a wrap) and a new series (a replaced file) break the line instead
//   of drawing a negative spike;
// - instant values are lines, discrete ones steps, strings change markers;
// - a snapshot without a value (SENTINEL: no row), a skipped snapshot, and a new series break
//   a line: no line is drawn across a gap;
// - `# event` lines of a series become markers on its panels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "formats/series_tsv.h"
#include "render/charts/value_units.h"

namespace hearth::charts {

struct PanelPoint {
  double t_ns = 0;  // since the chart's start
  double v = 0;     // in the panel's base unit (rates: per second)
};

// One instance's line in a panel. Colours are by instance name, the same in every panel.
struct PanelLine {
  std::string instance;                       // "" for a metric without instances
  size_t color = 0;                           // index into PanelSet::instances
  std::vector<std::vector<PanelPoint>> runs;  // each one unbroken polyline, in time order
  size_t resets = 0;  // counters: times the value went down (each breaks the line)
};

struct StringChange {
  double t_ns = 0;
  size_t line = 0;  // index into Panel::lines (the instance's lane)
  std::string value;
};

struct PanelEvent {
  double t_ns = 0;
  std::string kind;  // "replaced", "gone", "stale", …
  std::string detail;
};

enum class PanelKind : uint8_t { kLines, kSteps, kStrings };

struct Panel {
  std::string title;      // the metric's name
  std::string file;       // the series' name (the MMV file)
  std::string pcp_units;  // as plotted: counters' rates get " / sec" ("Kbyte / sec")
  std::string help;
  std::string semantics;  // "counter", …
  PanelKind kind = PanelKind::kLines;
  bool rate = false;
  ValueUnit unit;
  std::vector<PanelLine> lines;       // by instance name
  std::vector<StringChange> changes;  // kStrings: every change (the first value included)
  std::vector<PanelEvent> events;
  double min = 0, max = 0;  // over every plotted value (0, 0 when none)
  bool empty = true;        // nothing to plot
};

struct PanelOptions {
  std::optional<Pattern> metrics;  // only metrics whose name matches (searched anywhere)
  size_t max_panels = 60;
};

struct PanelSet {
  std::vector<Panel> panels;           // by file, then the metrics' declaration order
  std::vector<std::string> instances;  // every instance name, sorted: the colour order
  uint64_t start_ns = 0;               // the earliest time in the inputs
  double span_ns = 0;                  // the x axis: 0 .. span_ns
  size_t metrics = 0;                  // metrics that matched (panels before the cap)
  size_t filtered_out = 0;             // metrics --metrics left out
  std::vector<std::string> notes;      // events of no series (errors), "FILE: DETAIL"
  std::vector<std::string> clocks;     // each file's clock, once each
};

PanelSet build_panels(const std::vector<series::SeriesFile>& files, const PanelOptions& options);

}  // namespace hearth::charts
