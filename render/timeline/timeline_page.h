// The timeline page: one self-contained HTML file (templates/timeline.html, .css, .js) that
// draws every thread's lane on a canvas from the embedded data (timeline_data.h): zoom from the
// whole window down to microseconds, pan, hover for an interval's state, duration, CPU and
// preemptor or waker, click a sample's tick for its stack. No server logic, so file:// works,
// and `hearth serve` serves it as a file.
#pragma once

#include <string>

#include "render/timeline/lanes.h"
#include "render/timeline/timeline_data.h"

namespace hearth::timeline {

std::string timeline_page(const Model& model, const Names& names, const DataOptions& options);

}  // namespace hearth::timeline
