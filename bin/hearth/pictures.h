// Pictures the verbs write: the format by file name, a scene written in it, and what a
// flamegraph drew in words.
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"
#include "render/flame/layout.h"
#include "render/scene/scene.h"

namespace hearth::cli {

enum class OutFormat { kSvg, kPng, kPdf, kUnknown };

// "" and "-" (standard output) and *.svg: SVG; *.png; *.pdf; anything else: kUnknown.
OutFormat format_of(const std::string& path);

// Writes SCENE to PATH in FORMAT (PNG at SCALE pixels per px); "" writes SVG to standard output.
Result<void> write_picture(const scene::Scene& scene, const std::string& path, OutFormat format,
                           double scale);

// What a flamegraph drew and left out, in plain numbers: "581 frames", "1,234 frames, 56
// narrower than 0.1 px left out", "30,000 frames, 2 deeper than 29,999 left out (--max-frames
// 30000)".
std::string frames_text(const flame::FlameStats& stats, size_t max_frames);

}  // namespace hearth::cli
