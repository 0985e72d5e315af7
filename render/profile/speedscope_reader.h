// Reads a speedscope profile (speedscope's file format, the JSON schema of the npm package's
// dist/release/file-format-schema.json) as stacks, root first, each with a count:
//   - "sampled" profiles: each sample is a stack of indices into shared.frames, with its weight
//     (all weights 1 when there are none); integer weights are whole counts, others fractional;
//   - "evented" profiles: the time between two events ("at") goes to the stack open then;
//     whole counts when every "at" is an integer, else fractional.
//   - Frames are named by their "name" (';' becomes ':' and line breaks spaces, so a name is
//     one folded frame); "file" and "line" are not kept.
//   - Roots: in hearth's own files (exporter "hearth…") a profile's name is its stacks' root
//     (speedscope_writer.h). In other files a profile's name is a root "[NAME]" when the file
//     holds several profiles (threads stay apart) and a name in brackets already, "[…]", is
//     kept as it is; a single profile's name (usually a file name) is dropped.
// Bad data (not JSON, not speedscope's shape, a frame index past shared.frames, a close event
// that does not match the open frame, time going back, a negative weight) is an error, as a
// whole: nothing is given before the file has been checked through. Memory: the parsed JSON,
// several times the file's size; ReadOptions::max_speedscope_bytes bounds the file.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

// The most bytes of a speedscope file read.
inline constexpr size_t kMaxSpeedscopeBytes = size_t{256} << 20;

// Whether HEAD (a file's first bytes) is JSON's: '{' after blanks (folded stacks and gdb's text
// never start so).
bool looks_like_speedscope(std::string_view head);

struct SpeedscopeStats {
  uint64_t profiles = 0;
  uint64_t stacks = 0;  // given to the callback
};

// EACH gets every stack's frames (root first; views valid during the call) and count.
Result<SpeedscopeStats> read_speedscope(
    std::string_view json,
    const std::function<void(std::span<const std::string_view>, Count)>& each);

}  // namespace hearth::profile
