// Checks every verb makes before and while reading its inputs, each saying what is wrong in
// one line: patterns that don't compile, outputs that would overwrite inputs, folded lines
// skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "render/profile/folded_reader.h"

namespace hearth::cli {

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
// When `perf script` text held samples of more than one event: which one was read, and how many
// samples of the others were skipped (one line on stderr).
void report_perf_script(const char* verb, const profile::PerfScriptStats& stats);

}  // namespace hearth::cli
