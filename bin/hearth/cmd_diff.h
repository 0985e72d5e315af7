// `hearth diff`: compare two folded profiles (BASE, NEW); a summary on stdout, optionally a
// differential flamegraph, a Markdown or JSON summary and difffolded.pl's two-count format, and
// an exit status a pipeline can gate on.
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

// The command line as given, before validation.
struct DiffArgs {
  std::vector<std::string> inputs;  // BASE NEW
  std::string output;               // .svg .png .pdf (picture) or .md .json (summary)
  std::string summary;              // .md or .json
  std::string fail_above;           // pp; empty: no verdict
  double min_samples = 0;
  double per_sample = 1;               // --per-sample: counts that stand for one sample
  std::string count_name = "samples";  // --countname: what the counts are
  bool no_normalize = false;
  std::string folded_out;
  bool base_widths = false;
  std::string title;
  double width = 1200;
  size_t max_frames = 30000;
  double scale = 1;  // PNG pixel density
};

// Checks everything; returns every problem found (empty: fine).
std::vector<std::string> validate_diff(const DiffArgs& args);
// Runs the verb; returns the exit code: 0 no regression over --fail-above (or none given),
// 1 at least one, 2 bad usage or input, or an output that could not be written.
int run_diff(const DiffArgs& args);

}  // namespace hearth::cli
