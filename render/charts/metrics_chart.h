// The metrics chart: MMV series -> small multiples, one panel per metric in a grid, in one
// Scene of kind "chart time_link metrics" (SVG with templates/chart, time_link and metrics .css
// and .js: the last two put it on the report's time view's axis; PNG/PDF through cairo). Each
// panel: the metric's name, its units (PCP's notation) over the value axis, round ticks in SI
// units, a time axis from the inputs' earliest time, one line per instance (a legend when there
// are several; an instance has the same colour in every panel), steps for discrete values,
// change markers for strings, event markers, and the metric's help in the panel's tooltip.
// Output depends on the inputs and options only.
//
// Scene contract with templates/chart.js (as a section of the scheduler charts): the section's
// ids start "sN-": "sN-title", "sN-details" (the hover line showing the tooltip of what the
// pointer is over); panel P's layers are "sN-pP-frame", "sN-pP-grid", "sN-pP-lines",
// "sN-pP-events", "sN-pP-hover" (transparent columns: every line's value at one time),
// "sN-pP-legend".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "formats/series_tsv.h"
#include "render/charts/metric_panels.h"
#include "render/scene/scene.h"

namespace hearth::charts {

struct MetricsOptions {
  std::string title;    // empty: "Metrics: " and the MMV files' names
  double width = 1200;  // px
  PanelOptions panels;
};

struct MetricsStats {
  size_t panels = 0;
  size_t metrics = 0;       // that matched --metrics (panels before the cap)
  size_t filtered_out = 0;  // left out by --metrics
  size_t lines = 0;         // polylines drawn
};

// Panel geometry, for tests.
struct PanelGeometry {
  double x = 0, y = 0, w = 0, h = 0;                      // the panel's frame, px
  double plot_x = 0, plot_y = 0, plot_w = 0, plot_h = 0;  // the plot area, px
};

// Draws SET into SCENE (width set) from *Y down as section INDEX; advances *Y. TITLE: the
// section's title. Returns each panel's geometry.
std::vector<PanelGeometry> draw_metrics(const PanelSet& set, const std::string& title, int index,
                                        scene::Scene* scene, double* y, MetricsStats* stats);

// The whole picture for FILES alone.
scene::Scene layout_metrics(const std::vector<series::SeriesFile>& files,
                            const MetricsOptions& options, MetricsStats* stats);

// "Metrics: app, db" from the files' series names.
std::string metrics_title(const std::vector<series::SeriesFile>& files);

}  // namespace hearth::charts
