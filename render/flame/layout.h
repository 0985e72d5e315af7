// Flamegraph layout: a finalized FrameTree -> a Scene of frames, with flamegraph.pl's geometry
// (so its users' habits and scripts carry over) and hearth's extras (thread legend).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "render/profile/frame_tree.h"
#include "render/scene/color.h"
#include "render/scene/scene.h"

namespace hearth::flame {

struct FlameOptions {
  std::string title;  // empty: "Flame Graph", "Icicle Graph" or "Flame Chart"
  std::string subtitle;
  double width = 1200;       // px
  double frame_height = 16;  // px
  std::string font_type = "Verdana";
  double font_size = 12;     // px
  double font_width = 0.59;  // average glyph width / font size
  double min_width = 0.1;    // px, or percent of the total when min_width_percent
  bool min_width_percent = false;
  std::string count_name = "samples";
  std::string name_type = "Function:";
  scene::Palette palette = scene::Palette::kHot;
  std::string bg_colors;  // see scene::background_colors
  bool hash = false;      // colour by name prefix (flamegraph.pl --hash)
  bool inverted = false;  // icicle graph
  bool flamechart = false;
  bool negate = false;  // differential: swap red and blue
  double factor = 1;    // counts are multiplied by this in titles
  double total = 0;     // width of the whole graph in counts; 0 or less than the sum: the sum
  std::string notes;
  // At most this many frames are drawn ("all" included; 0: no limit): the narrowest are left
  // out, and of those as wide as the narrowest one kept, the deepest.
  size_t max_frames = 30000;
  // The SVG writes frames narrower than lazy_px as data only (its script draws them when a zoom
  // makes them wider) once there are more than lazy_after frames: the browser then parses,
  // styles and paints a few thousand elements rather than tens of thousands at first.
  double lazy_px = 1;        // px
  size_t lazy_after = 3000;  // frames
  // Called for every frame drawn (the root "all" too), after its geometry, label, title and
  // fill are set and before the thread legend copies them: a caller (hearth diff) may change
  // the title, fill and outline. The title must keep the form `NAME (COUNT …` (FLAME_DOM.md).
  std::function<void(profile::NodeId, scene::Rect*)> decorate;
};

struct FlameStats {
  size_t frames = 0;            // drawn, including "all"
  size_t pruned = 0;            // frames of the tree not drawn: narrow + deep
  size_t narrow = 0;            // ... narrower than min_width_px (empty ones too)
  double min_width_px = 0;      // the width below which frames were left out
  bool max_frames_cut = false;  // max_frames, not min_width, set that width
  size_t deep = 0;              // frames min_width_px wide left out for max_frames, ...
  int deep_below = 0;           // ... all deeper than this ("all" is depth 0)
  int max_depth = 0;
  size_t threads = 0;  // thread roots found
};

scene::Scene layout_flame(const profile::FrameTree& tree, const FlameOptions& options,
                          FlameStats* stats);

}  // namespace hearth::flame
