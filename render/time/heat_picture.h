// The heatmap's static picture: a Grid -> a scene (kind "heatgrid": SVG with a hover details
// line, templates/heatgrid.js; PNG and PDF through Cairo), for places without a browser. A
// cell is a rect coloured by its count (heat_color), titled with its time and counts by
// state; empty cells are not drawn. Columns left to right, rows top (offset 0) to bottom.
#pragma once

#include <optional>
#include <string>

#include "render/scene/scene.h"
#include "render/time/heat_grid.h"

namespace hearth::heat {

struct PictureOptions {
  std::string title = "Heatmap";
  std::string subtitle;  // below the title; empty: the layout and the counts
  double width = 1200;   // px, at most: narrower when the columns are few (up to 48 px each),
                         // wider when they need it (at least 1 px each)
  // What the colour counts: one state class, or every thread-sample (nullopt).
  std::optional<StateClass> state;
};

scene::Scene layout_heatmap(const Grid& grid, const PictureOptions& options);

// The colour of a cell holding FRACTION (0 < FRACTION <= 1) of the largest cell's count: pale
// yellow through orange to dark red. templates/heatmap_grid.js computes the same.
scene::Rgb heat_color(double fraction);

// "all samples", "R (on CPU or runnable)", ...: what a state class means in a legend.
const char* state_class_text(std::optional<StateClass> state);

}  // namespace hearth::heat
