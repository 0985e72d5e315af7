// What several verbs share: picture formats by file name, writing a scene in one, the tracing
// permission check, and the figures of a list of stalls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "common/result.h"
#include "render/flame/layout.h"
#include "render/profile/folded_reader.h"
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

// What the folded reader skipped, one line each on stderr ("hearth VERB: ignored 1 line that
// is not ..."; lines over the length limit). False, after one line saying where, when the
// counts went past kMaxWholeCount: the caller exits 2.
bool report_reading(const char* verb, const profile::ReadStats& stats);

// What a flamegraph drew and left out, in plain numbers: "581 frames", "1,234 frames, 56
// narrower than 0.1 px left out", "30,000 frames, 2 deeper than 29,999 left out (--max-frames
// 30000)".
std::string frames_text(const flame::FlameStats& stats, size_t max_frames);

// V in plain digits: thousands separated, about three significant digits below 100
// (1180 -> "1,180", 0.1 -> "0.1", 0.0123 -> "0.0123"), never an exponent.
std::string plain_number(double v);

// Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: what tracefs tracing needs.
bool may_trace();

double median_of(std::vector<double> values);  // 0 when empty
double max_of(const std::vector<double>& values);

}  // namespace hearth::cli
