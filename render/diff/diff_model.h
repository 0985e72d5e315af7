// The differential profile: two folded profiles (BASE, NEW) merged into one tree, and for every
// function and every stack path the share of each profile, the change in percentage points
// and whether that change is more than sampling noise. One model; the summary writers
// (diff_report.h), the picture (diff_picture.h) and the two-count folded output read it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::diff {

struct DiffOptions {
  // Shares of each profile's own total (true), or both as shares of BASE's total (raw counts).
  bool normalize = true;
  // Functions and paths with fewer samples than this in both profiles are not tested.
  double min_samples = 0;
  // Family-wise error rate of each family of tests (functions; paths), Bonferroni-corrected.
  double alpha = 0.001;
  // How many of a profile's counts stand for one sample in the tests (and in min_samples): 1 for
  // sample counts; for a profile weighted by bytes sampled once per MEAN bytes on average (`hearth
  // alloc`), MEAN: a sample weighs at least MEAN bytes, so counts / MEAN never exceeds the
  // samples and the tests stay on the cautious side. Shares and every count shown are unchanged.
  double per_sample = 1;
  // What the counts are, in the summaries and the picture ("samples", "bytes", "calls").
  std::string count_name = "samples";
};

// One measure (inclusive or self) of one function or path. Shares in percent.
struct Measure {
  profile::Count base;    // samples in BASE
  profile::Count next;    // samples in NEW
  double base_share = 0;  // % of BASE's total
  double new_share = 0;   // % of NEW's total (of BASE's when not normalised)
  double pp = 0;          // new_share - base_share, percentage points
  double z = 0;           // test statistic; positive: grew
  bool significant = false;
};

// A function (all frames of one name; inclusive time counts a recursive call once) or a stack
// path (one node of the merged tree: the root-first prefix ending there; see path_item()).
struct Item {
  profile::NameId name = 0;               // functions: the name; paths: the last frame's name
  profile::NodeId node = profile::kNone;  // paths only
  Measure inclusive;
  Measure self;
  bool tested = false;  // had at least min_samples samples in one of the profiles
};

struct DiffModel {
  // The union of both profiles' paths: node.self/total are NEW's counts, base_self/base_total
  // BASE's. Thread roots lose their ids ("[worker-3 tid=42]" -> "[worker-3]"): two recordings
  // never share tids.
  profile::FrameTree tree{profile::Merge::kAll};
  profile::Count base_total;  // samples
  profile::Count new_total;
  DiffOptions options;
  std::vector<Item> functions;  // by name (byte order); the root "all" is not a function
  // Paths are not stored (a broad profile has millions): path_item() computes one.
  size_t function_tests = 0;  // tests in the functions family (2 per tested function)
  size_t path_tests = 0;
  double function_z = 0;  // |z| a function's change must exceed to be significant
  double path_z = 0;
  // Paths whose inclusive change is significant, by NodeId: the few significant_paths() ranks.
  std::vector<profile::NodeId> significant_nodes;
};

// Merges BASE and NEW (finalized trees, one-count input) and computes every measure.
// CHECKs that both totals are above zero (the caller reports empty input).
DiffModel build_diff(const profile::FrameTree& base, const profile::FrameTree& next,
                     const DiffOptions& options);

// The same from BASE and NEW read straight into one tree, without two trees to merge (faster,
// and less memory): an empty_merged_tree(), read with merged_read_options(true) for BASE, then
// merged_read_options(false) for NEW, then finalized. Gives the model build_diff() would.
profile::FrameTree empty_merged_tree();
profile::ReadOptions merged_read_options(bool base);
DiffModel build_diff_merged(profile::FrameTree merged, const DiffOptions& options);
// Whether BASE's (or NEW's) column of a merged tree being read has a count above zero yet.
bool has_samples(const profile::FrameTree& merged, bool base);

// The path ending at NODE (kRoot: "all"), with its measures and whether they are significant.
Item path_item(const DiffModel& model, profile::NodeId node);

// "a;b;c" for a path.
std::string path_name(const DiffModel& model, profile::NodeId node);

// The |z| above which a two-sided test at level ALPHA over TESTS tests is significant.
double critical_z(double alpha, size_t tests);

// The change of one function or path: the two-proportion z statistic for shares X1/N1 vs
// X2/N2 (pooled variance), or, when not normalised, the conditional test of two Poisson
// counts (X2 - X1) / sqrt(X1 + X2). 0 when the variance is 0.
double change_z(double x1, double n1, double x2, double n2, bool normalize);

// Ranked views for the writers. Ranking: the larger change first (pp rounded to 0.01, as
// printed), then the larger self change (the function that did the work before its callers),
// then name order.

// Functions whose inclusive or self share grew significantly by more than THRESHOLD pp: the
// regressions --fail-above fails on. Indexes into model.functions, largest first.
std::vector<size_t> regressions(const DiffModel& model, double threshold_pp);
// Significant changes of functions, growing (SIGN > 0) or shrinking (SIGN < 0), by |pp|.
std::vector<size_t> significant_functions(const DiffModel& model, int sign);
// Significant changes of paths, growing or shrinking, by |inclusive pp|.
std::vector<profile::NodeId> significant_paths(const DiffModel& model, int sign);
// Paths only in NEW (ADDED) or only in BASE: the topmost such node of each branch, widest first.
std::vector<profile::NodeId> only_in_one(const DiffModel& model, bool added);
// Functions only in NEW (ADDED) or only in BASE, widest first.
std::vector<size_t> functions_only_in_one(const DiffModel& model, bool added);

}  // namespace hearth::diff
