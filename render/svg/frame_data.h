// A layer's rects as compact data for the SVG's script (templates/FLAME_DOM.md, "Frame data"):
// one JSON object, columns per field, the strings of titles split at their last " (" and kept
// once each. The JSON holds no `<`, `&` or `>` (they are written as \u escapes), so it is also
// valid XML element text as it stands.
#pragma once

#include <string>

#include "render/scene/scene.h"

namespace hearth::svg {

// The px width below which LAYER's rects are written as data only; 0: every rect is an element.
double lazy_width(const scene::Layer& layer);

// Whether the rect is written as an element when the layer's lazy width is LAZY (px).
bool written_as_element(const scene::Rect& r, double lazy);

// Appends the layer's data object (rects in paint order).
void append_frame_data(std::string* out, const scene::Layer& layer);

}  // namespace hearth::svg
