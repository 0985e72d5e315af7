// Writes a FrameTree as a speedscope profile (speedscope's file format: the JSON schema shipped
// in the npm package's dist/release/file-format-schema.json). One "sampled" profile per root
// frame, named as the root (hearth's roots name threads: "[NAME tid=TID]"), in name order; each
// distinct stack under it (root excluded, root first) is one sample whose weight is its count
// (unit "none"). Frames are shared, one per distinct name (`{"name": …}`). Exporter "hearth":
// speedscope_reader.h puts each profile's name back as its stacks' root, so folded ->
// speedscope -> folded gives the same stacks and counts. Names that are not UTF-8 have their bad
// bytes replaced (JSON is UTF-8).
#pragma once

#include <string>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

// The profile as JSON text. Fails on a differential tree (two columns of counts).
Result<std::string> to_speedscope(const FrameTree& tree);
// to_speedscope, written atomically to PATH ("-": standard output).
Result<void> write_speedscope(const FrameTree& tree, const std::string& path);

// OUT.speedscope.json: a speedscope profile.
bool is_speedscope_path(std::string_view path);

}  // namespace hearth::profile
