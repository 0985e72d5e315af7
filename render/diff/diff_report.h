// Writers over a DiffModel: the short human summary (stdout), Markdown (a pull-request
// comment), JSON (for tools) and the two-count folded format difffolded.pl writes. All output
// is deterministic: sorted, fixed number formats, file names as given.
#pragma once

#include <optional>
#include <string>

#include "render/diff/diff_model.h"

namespace hearth::diff {

struct ReportOptions {
  std::string base_name;  // shown as given (the CLI passes the file's base name)
  std::string new_name;
  std::optional<double> fail_above;  // pp; nullopt: no verdict
  size_t rows = 10;                  // rows per table in text and Markdown
};

std::string summary_text(const DiffModel& model, const ReportOptions& options);
std::string summary_markdown(const DiffModel& model, const ReportOptions& options);
std::string summary_json(const DiffModel& model, const ReportOptions& options);

// `stack BASE NEW` per stack, root first, siblings in name order. Normalised: BASE's counts
// are scaled to NEW's total and rounded to integers, as `difffolded.pl -n` does.
std::string diff_folded(const DiffModel& model);

}  // namespace hearth::diff
