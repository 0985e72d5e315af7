// The moment's static picture (`hearth heatmap --moment T -o moment.png|.pdf|.svg`), for places
// without a browser: the title and the counts, then each group as the page's moment view shows
// it, in its order: a band in the rank's colour with the group's head line (moment_text.h), its
// stack leaf first, then its threads (the first kMaxThreadLines, then how many more). Long lines
// are cut to the width with "…"; the text output has them whole.
#pragma once

#include "formats/timed_samples.h"
#include "render/moment/moment.h"
#include "render/scene/scene.h"

namespace hearth::moment {

inline constexpr size_t kMaxThreadLines = 12;

struct PictureOptions {
  double width = 1200;  // px
};

scene::Scene layout_moment(const timed_samples::Samples& samples, const Moment& moment,
                           const PictureOptions& options);

// The band colour of a rank (as templates/heatmap.css's moment groups).
scene::Rgb rank_color(Rank rank);

}  // namespace hearth::moment
