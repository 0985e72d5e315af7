// What several verbs share: picture formats by file name, writing a scene in one, the tracing
// permission check, and the figures of a list of stalls.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "render/scene/scene.h"

namespace hearth::cli {

enum class OutFormat { kSvg, kPng, kPdf, kUnknown };

// "" and "-" (standard output) and *.svg: SVG; *.png; *.pdf; anything else: kUnknown.
OutFormat format_of(const std::string& path);

// Writes SCENE to PATH in FORMAT (PNG at SCALE pixels per px); "" writes SVG to standard output.
Result<void> write_picture(const scene::Scene& scene, const std::string& path, OutFormat format,
                           double scale);

// Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: what tracefs tracing needs.
bool may_trace();

double median_of(std::vector<double> values);  // 0 when empty
double max_of(const std::vector<double>& values);

}  // namespace hearth::cli
