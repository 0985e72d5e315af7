// Number formatting shared by the backends and layouts, so a coordinate written in one place
// (a frame's x) can be found from another (a legend's data-x).
#pragma once

#include <string>

namespace hearth::scene {

// Rounded to 0.1 px (flamegraph.pl's precision).
double round_px(double v);
// round_px(v) as text without a trailing ".0": 10 -> "10", 10.25 -> "10.3", -0.0 -> "0".
std::string format_px(double v);

}  // namespace hearth::scene
