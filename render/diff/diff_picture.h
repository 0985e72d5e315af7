// The differential flamegraph: a DiffModel -> a scene::Scene drawn by the flamegraph layout
// (render/flame), so every interaction of `hearth flame` works, with
// - widths from NEW (or BASE), colours from the change of each frame's inclusive share,
// - frames that exist only on the drawn side outlined,
// - a colour key, and a strip listing the paths that exist only on the other side (they have
//   no width in the graph), so nothing disappears silently.
#pragma once

#include <cstddef>
#include <string>

#include "render/diff/diff_model.h"
#include "render/flame/layout.h"
#include "render/scene/scene.h"

namespace hearth::diff {

struct PictureOptions {
  bool base_widths = false;  // widths from BASE rather than NEW
  std::string base_name;     // shown in the subtitle
  std::string new_name;
  std::string title;          // empty: "Differential Flame Graph"
  double width = 1200;        // px
  size_t max_frames = 30000;  // see flame::FlameOptions
  size_t missing_rows = 12;   // rows in the strip of paths missing from the graph
};

struct PictureStats {
  flame::FlameStats flame;
  size_t missing = 0;  // paths only on the side not drawn
};

scene::Scene layout_diff(const DiffModel& model, const PictureOptions& options,
                         PictureStats* stats);

// The diverging scale: grey at 0, red for growth, blue for shrinkage; the intensity grows
// with log(1 + |pp| / 0.01) and saturates at 10 pp, so a 0.1 pp change is already clearly
// tinted whatever the largest change is. Changes that are not significant are muted.
scene::Rgb diff_color(double pp, bool significant);

}  // namespace hearth::diff
