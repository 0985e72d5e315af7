// The scene: what a picture contains, independent of how it is written. Layouts (flamegraph,
// charts) produce a Scene; backends (svg/, cairo/) draw it. Coordinates are in px, origin top
// left, y down. A Scene is plain data: backends must not need to know which layout made it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hearth::scene {

struct Rgb {
  uint8_t r = 0;
  uint8_t g = 0;
  uint8_t b = 0;
  bool operator==(const Rgb&) const = default;
};

enum class Anchor : uint8_t { kStart, kMiddle, kEnd };

// A piece of text. `id` and `css_class` are for interactive backends (the SVG script finds
// the details line, search button… by id); static backends draw the text and ignore them.
struct Text {
  double x = 0;  // px; where the anchor is
  double y = 0;  // px; baseline
  std::string text;
  Anchor anchor = Anchor::kStart;
  double size = 12;  // px
  bool bold = false;
  Rgb color{0, 0, 0};
  std::string id;
  std::string css_class;
  bool hidden = false;  // present for the script, not drawn statically (e.g. "Reset Zoom")
};

// A filled rectangle with an optional label drawn inside it and a tooltip.
struct Rect {
  double x = 0;  // px
  double y = 0;  // px, top edge
  double w = 0;  // px
  double h = 0;  // px
  Rgb fill;
  std::string label;      // already cut to fit; empty: no text
  double label_x = 0;     // px; start of the label's baseline
  double label_y = 0;     // px; baseline
  std::string title;      // tooltip (SVG <title>): full name and figures
  std::string css_class;  // e.g. "t" for a thread root frame; space-separated
  Rgb stroke;               // outline colour, drawn only when stroke_width > 0
  double stroke_width = 0;  // px; 0: no outline (the flamegraph's frames have none)
  // Extra attributes for interactive backends only (e.g. {"data-thread", "worker"}).
  std::vector<std::pair<std::string, std::string>> attrs;
  // A hover target: interactive backends draw it fully transparent (its tooltip still shows);
  // static backends leave it out.
  bool hover_only = false;
};

// An open line through points (a time series): stroked, never filled. A break in a series is
// two Polylines.
struct Polyline {
  std::vector<std::pair<double, double>> points;  // px (x, y), in drawing order; >= 2 to show
  Rgb color;
  double width = 1.5;     // px
  std::string title;      // tooltip
  std::string css_class;  // space-separated
};

// Rectangles that belong together (all flame frames; one legend). `id` becomes the SVG group id.
struct Layer {
  std::string id;
  std::vector<Rect> rects;  // paint order
  std::vector<Polyline> lines;  // painted after the rects, in order
  // Interactive backends only (static ones draw every rect): when `as_data`, the rects are also
  // written as compact data for the script, and, with more than `lazy_after` rects, only those
  // at least `lazy_px` wide are written as elements: the script draws the others when a zoom
  // makes them that wide (templates/FLAME_DOM.md). All rects must then have one height, no
  // `attrs` and no `hover_only`.
  bool as_data = false;
  double lazy_px = 0;     // px
  size_t lazy_after = 0;  // rects
};

struct Scene {
  double width = 0;   // px
  double height = 0;  // px
  // Which interactive script and style the SVG backend embeds ("flame", "chart", ...).
  std::string kind;
  std::string font_family = "Verdana, DejaVu Sans, sans-serif";
  double font_size = 12;  // px; default for labels
  Rgb background_top{0xee, 0xee, 0xee};
  Rgb background_bottom{0xee, 0xee, 0xb0};
  std::string notes;  // free text kept in the output (SVG comment), never drawn
  // data-* attributes for the root element, read by the interactive script.
  std::vector<std::pair<std::string, std::string>> data;
  std::vector<Text> texts;
  std::vector<Layer> layers;  // paint order: background, then texts, then layers in order
};

}  // namespace hearth::scene
