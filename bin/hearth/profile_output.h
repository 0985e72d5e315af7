// Where a verb writes a profile, the file's name says its format: OUT.pb.gz is pprof
// (render/profile/pprof_writer.h), OUT.speedscope.json speedscope (speedscope_writer.h), anything
// else folded stacks.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::cli {

// OUT.pb.gz (or .pprof): a pprof profile.
bool is_pprof_path(std::string_view path);

// Folded TEXT (a sampler's own, whole lines) written to PATH as pprof, with the sampling period
// PERIOD_NS (0: unknown).
Result<void> write_folded_as_pprof(std::string_view text, const std::string& path,
                                   double period_ns);

// Folded TEXT written to PATH as speedscope JSON.
Result<void> write_folded_as_speedscope(std::string_view text, const std::string& path);

}  // namespace hearth::cli
