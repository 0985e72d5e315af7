// The static backend: draws a scene::Scene with cairo into a PNG or a PDF. Same frames, colours
// and text as the SVG backend; everything interactive (ids, classes, attrs, tooltips, hidden
// texts) is left out. Labels and texts use DejaVu Sans whatever scene.font_family says.
#pragma once

#include <string>

#include "common/result.h"
#include "render/scene/scene.h"

namespace hearth::cairo_backend {

enum class Format { kPng, kPdf };

// Draws SCENE and writes it to PATH atomically (temp name + rename; "-" is standard output).
// SCALE multiplies the output size: a PNG is ceil(width × scale) × ceil(height × scale) px
// (2.0 for HiDPI); a PDF page is width × scale by height × scale pt (1 px = 1 pt at scale 1).
// Errors: "cannot write PATH: REASON".
Result<void> write(const scene::Scene& scene, const std::string& path, Format format,
                   double scale = 1.0);

// Same as a PNG, into memory: the bytes of the PNG file.
Result<std::string> render_png(const scene::Scene& scene, double scale = 1.0);

}  // namespace hearth::cairo_backend
