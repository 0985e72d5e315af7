// What several verbs share: picture formats by file name, writing a scene in one, the tracing
// permission check, and the figures of a list of stalls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "common/result.h"
#include "render/scene/scene.h"

namespace hearth::cli {

enum class OutFormat { kSvg, kPng, kPdf, kUnknown };

// "" and "-" (standard output) and *.svg: SVG; *.png; *.pdf; anything else: kUnknown.
OutFormat format_of(const std::string& path);

// Writes SCENE to PATH in FORMAT (PNG at SCALE pixels per px); "" writes SVG to standard output.
Result<void> write_picture(const scene::Scene& scene, const std::string& path, OutFormat format,
                           double scale);

// The filter pattern of OPTION (--grep, --metrics, ...): nullopt when TEXT is empty; a TEXT that
// does not compile adds "OPTION TEXT: not a regular expression (WHY)" to *PROBLEMS.
std::optional<Pattern> filter_pattern(const std::string& option, const std::string& text,
                                      std::vector<std::string>* problems);

// The output guard (common/output_guard.h) of VERB: false, after printing its one line
// ("hearth VERB: output OUT is also an input (IN) — choose another name"), when an output is
// one of the inputs or two outputs are one file. Call it before reading any input.
bool outputs_are_new(const char* verb, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs);

// Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: what tracefs tracing needs.
bool may_trace();

double median_of(std::vector<double> values);  // 0 when empty
double max_of(const std::vector<double>& values);

}  // namespace hearth::cli
