// Writes a FrameTree back as folded stacks: one line per node with a self count, root first,
// siblings in name order (deterministic); whole counts as integers, a fractional tree's as
// real numbers.
// Differential trees write two counts (BASE NEW), the format difffolded.pl writes.
#pragma once

#include <string>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

// "12", "0.5", "100000000000000000000": always plain digits, never an exponent.
std::string format_count(double count);
// Whole counts exactly ("18446744073709551615"); fractional ones as above, always with a dot
// ("3.0"), so that they read back as real numbers.
std::string format_count(Count count);
std::string to_folded(const FrameTree& tree);
Result<void> write_folded(const FrameTree& tree, const std::string& path);

}  // namespace hearth::profile
