// The heatmap page: one self-contained HTML file (templates/heatmap.html, .css, .js) that draws
// the subsecond-offset heatmap of timed stack samples, the flamegraph of a selected time range
// (and the differential flamegraph of two ranges) with templates/flame.js, and the moment view
// of one sample: every thread's state and stack then, grouped. Everything is drawn in the
// browser from the embedded data (heat_data.h): no server, so file:// works, and `hearth serve`
// serves it as a file.
#pragma once

#include <string>

#include "formats/timed_samples.h"
#include "render/time/heat_grid.h"

namespace hearth::heat {

struct PageOptions {
  std::string title = "Heatmap";
  std::string source;  // the file read, as named
};

std::string heatmap_page(const timed_samples::Samples& samples, const Layout& layout,
                         const PageOptions& options);

}  // namespace hearth::heat
