// Frame names as shown: annotation suffixes stripped, C++ names shortened to fit a label.
// The algorithm is shared with templates/flame.js (see templates/FLAME_DOM.md): keep them equal.
#pragma once

#include <string>
#include <string_view>

#include "render/profile/frame_tree.h"

namespace hearth::flame {

// "foo_[k]" -> "foo" (the suffixes flamegraph.pl knows: _[k] _[w] _[i] _[j]).
std::string_view strip_annotation(std::string_view name);

// Step 1 of FLAME_DOM.md: outermost (…) groups become "(…)" ("()" if empty); unbalanced: as is.
std::string drop_parameters(std::string_view name);
// Step 2: the same for <…>, applied after step 1.
std::string drop_template_arguments(std::string_view name);

// Length in characters: code points, and each byte that is not valid UTF-8 (common/utf8.h).
size_t code_points(std::string_view s);

// The label for a frame whose rect is WIDTH px wide, or "" when fewer than 3 characters fit.
std::string fit_label(std::string_view name, double width, double font_size, double font_width);

// 1234567 -> "1,234,567"; rounds like printf("%.0f").
std::string with_thousands(double count);
// COUNT times FACTOR, the same way; a whole count times 1 exactly.
std::string with_thousands(profile::Count count, double factor = 1);

}  // namespace hearth::flame
