#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "bin/hearth/cmd_diff.h"
#include "render/diff/diff_model.h"
#include "render/diff/diff_picture.h"
#include "render/diff/diff_report.h"
#include "render/profile/folded_reader.h"

namespace hearth::diff {
namespace {

using profile::FrameTree;
using profile::NodeId;

FrameTree tree_of(std::string_view text) {
  FrameTree t(profile::Merge::kAll);
  profile::FoldedReader r(t, {});
  r.read_text(text);
  t.finalize();
  return t;
}

DiffModel diff_of(std::string_view base, std::string_view next, DiffOptions o = {}) {
  return build_diff(tree_of(base), tree_of(next), o);
}

const Item* function(const DiffModel& m, std::string_view name) {
  for (const Item& it : m.functions) {
    if (m.tree.name(it.name) == name) return &it;
  }
  return nullptr;
}

std::optional<Item> path(const DiffModel& m, std::string_view p) {
  for (size_t i = 1; i < m.tree.size(); ++i) {
    if (path_name(m, static_cast<NodeId>(i)) == p) return path_item(m, static_cast<NodeId>(i));
  }
  return std::nullopt;
}

// A synthetic server profile: stacks (root first) with their probabilities.
struct Profile {
  std::vector<std::string> stacks;
  std::vector<double> weights;
};

Profile server_profile() {
  Profile p;
  const char* threads[] = {"[worker-1 tid=11]", "[worker-2 tid=12]", "[main tid=10]"};
  const char* mids[] = {"app::Pool::work()", "app::serve()", "db::Query::run(int)"};
  const char* leaves[] = {"parse(char const*)",
                          "encode(Value const&)",
                          "std::mutex::lock()",
                          "checksum(unsigned char const*)",
                          "memcpy",
                          "futex_wait_[k]",
                          "hot::compute(int)",
                          "alloc(unsigned long)"};
  double w = 1;
  for (const char* t : threads) {
    for (const char* m : mids) {
      for (const char* l : leaves) {
        p.stacks.push_back(std::string(t) + ";start_thread;" + m + ";" + l);
        p.weights.push_back(w);
        w = std::fmod(w * 1.7, 9.0) + 0.5;  // uneven but deterministic
      }
    }
  }
  return p;
}

// N samples drawn from P, as folded text.
std::string sample(const Profile& p, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::discrete_distribution<size_t> pick(p.weights.begin(), p.weights.end());
  std::vector<int> counts(p.stacks.size());
  for (int i = 0; i < n; ++i) ++counts[pick(rng)];
  std::string out;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) out += p.stacks[i] + " " + std::to_string(counts[i]) + "\n";
  }
  return out;
}

// P with FUNCTION's inclusive share raised by PP percentage points, by adding weight to the
// stacks ending in it (in proportion to their weight).
Profile inject(Profile p, std::string_view function, double pp) {
  double total = 0, f = 0;
  for (size_t i = 0; i < p.stacks.size(); ++i) {
    total += p.weights[i];
    if (p.stacks[i].ends_with(function)) f += p.weights[i];
  }
  double share = f / total, target = share + pp / 100;
  double add = (target * total - f) / (1 - target);
  for (size_t i = 0; i < p.stacks.size(); ++i) {
    if (p.stacks[i].ends_with(function)) p.weights[i] += add * p.weights[i] / f;
  }
  return p;
}

TEST(DiffStats, TwoProportionZ) {
  // p1 = 0.5, p2 = 0.6, pooled 0.55: z = 0.1 / sqrt(0.55 * 0.45 * 0.02) = 1.4213.
  EXPECT_NEAR(change_z(50, 100, 60, 100, true), 1.4213, 1e-4);
  EXPECT_NEAR(change_z(60, 100, 50, 100, true), -1.4213, 1e-4);
  EXPECT_EQ(change_z(0, 100, 0, 200, true), 0);      // no variance
  EXPECT_EQ(change_z(100, 100, 200, 200, true), 0);  // always present
  // Raw counts: (x2 - x1) / sqrt(x1 + x2).
  EXPECT_NEAR(change_z(36, 1000, 64, 1000, false), 2.8, 1e-12);
}

TEST(DiffStats, CriticalZ) {
  EXPECT_NEAR(critical_z(0.05, 1), 1.95996, 1e-4);
  EXPECT_NEAR(critical_z(0.001, 1), 3.29053, 1e-4);
  EXPECT_NEAR(critical_z(0.05, 10), critical_z(0.005, 1), 1e-9);  // Bonferroni
  EXPECT_GT(critical_z(0.001, 100000), critical_z(0.001, 100));
}

TEST(DiffModel, SharesChangesAndFunctions) {
  auto m = diff_of("t;a;b 50\nt;a;c 50\n", "t;a;b 75\nt;a;c 25\nt;d 100\n");
  EXPECT_EQ(m.base_total.value, 100);
  EXPECT_EQ(m.new_total.value, 200);
  const Item* b = function(m, "b");
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->inclusive.base_share, 50);
  EXPECT_DOUBLE_EQ(b->inclusive.new_share, 37.5);
  EXPECT_DOUBLE_EQ(b->inclusive.pp, -12.5);
  EXPECT_DOUBLE_EQ(b->self.pp, -12.5);
  const Item* a = function(m, "a");
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->inclusive.pp, 50 - 100);
  EXPECT_DOUBLE_EQ(a->self.new_share, 0);
  std::optional<Item> d = path(m, "t;d");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->inclusive.base.value, 0);
  EXPECT_EQ(d->inclusive.next.value, 100);
  EXPECT_EQ(function(m, "all"), nullptr);  // the root is not a function
}

TEST(DiffModel, RecursionCountsOnceInclusive) {
  auto m = diff_of("f;g;f;h 10\nf 10\n", "f;g;f;h 10\nf 10\n");
  const Item* f = function(m, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->inclusive.base.value, 20);  // not 30: the nested f is the same samples
  EXPECT_EQ(f->self.base.value, 10);
  EXPECT_DOUBLE_EQ(f->inclusive.base_share, 100);
}

TEST(DiffModel, ThreadIdsDoNotMatter) {
  auto m = diff_of("[worker-1 tid=11];run 10\n[main tid=10];main 10\n",
                   "[worker-1 tid=99];run 10\n[main tid=98];main 10\n");
  EXPECT_TRUE(only_in_one(m, true).empty());
  EXPECT_TRUE(only_in_one(m, false).empty());
  ASSERT_TRUE(path(m, "[worker-1];run"));
  EXPECT_EQ(path(m, "[worker-1];run")->inclusive.pp, 0);
}

TEST(DiffModel, AddedAndRemovedPathsAreTheTopmost) {
  auto m = diff_of("a;b 10\na;old;x 5\na;old;y 5\n", "a;b 10\na;new;z 7\na;b;deeper 3\n");
  std::vector<NodeId> added = only_in_one(m, true);
  std::vector<NodeId> removed = only_in_one(m, false);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(path_name(m, added[0]), "a;new");  // widest first
  EXPECT_EQ(path_name(m, added[1]), "a;b;deeper");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(path_name(m, removed[0]), "a;old");
  std::vector<size_t> fa = functions_only_in_one(m, true);
  ASSERT_EQ(fa.size(), 3u);  // new, z, deeper
  EXPECT_EQ(m.tree.name(m.functions[fa[0]].name), "new");
  std::vector<size_t> fr = functions_only_in_one(m, false);
  ASSERT_EQ(fr.size(), 3u);
  EXPECT_EQ(m.tree.name(m.functions[fr[0]].name), "old");
}

TEST(DiffModel, IdenticalInputsHaveNoChange) {
  std::string text = sample(server_profile(), 20000, 7);
  auto m = diff_of(text, text);
  for (const Item& it : m.functions) {
    EXPECT_EQ(it.inclusive.pp, 0);
    EXPECT_FALSE(it.inclusive.significant || it.self.significant);
  }
  EXPECT_TRUE(regressions(m, 0).empty());
  EXPECT_TRUE(significant_paths(m, 1).empty());
  EXPECT_TRUE(significant_paths(m, -1).empty());
}

TEST(DiffModel, InjectedRegressionIsFoundAndNamedFirst) {
  Profile base = server_profile();
  Profile next = inject(base, "hot::compute(int)", 10);
  auto m = diff_of(sample(base, 20000, 1), sample(next, 25000, 2));
  const Item* hot = function(m, "hot::compute(int)");
  ASSERT_TRUE(hot);
  EXPECT_NEAR(hot->inclusive.pp, 10, 1.5);  // sampling noise around the injected +10 pp
  EXPECT_TRUE(hot->inclusive.significant);
  std::vector<size_t> reg = regressions(m, 5);
  ASSERT_FALSE(reg.empty());
  EXPECT_EQ(m.tree.name(m.functions[reg[0]].name), "hot::compute(int)");
  // The text and Markdown summaries name it first too.
  ReportOptions ro{.base_name = "b", .new_name = "n", .fail_above = 5.0};
  std::string text = summary_text(m, ro);
  size_t first = text.find(" pp  ");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.compare(first + 5, 17, "hot::compute(int)"), 0) << text;
  EXPECT_NE(text.find("FAIL: "), std::string::npos);
  std::string md = summary_markdown(m, ro);
  EXPECT_NE(md.find("**FAIL**"), std::string::npos);
  size_t table = md.find("#### Regressions");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(md.find("`hot::compute(int)`", table), md.find("#### Functions that grew"));
  // Below the threshold: no regression.
  EXPECT_TRUE(regressions(m, 15).empty());
}

TEST(DiffModel, ResamplingsOfOneProfileNeverFail) {
  // Two independent samples of the same distribution, 200 seeds: no significant growth at
  // any threshold, functions or paths (the family-wise level is 0.001 per family).
  Profile p = server_profile();
  int failing = 0, significant_paths_seen = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto m = diff_of(sample(p, 4000, 1000 + seed), sample(p, 6000, 5000 + seed));
    failing += !regressions(m, 0).empty();
    significant_paths_seen += !significant_paths(m, 1).empty() || !significant_paths(m, -1).empty();
  }
  EXPECT_EQ(failing, 0);
  EXPECT_EQ(significant_paths_seen, 0);
}

TEST(DiffModel, SmallChangeOnFewSamplesIsNotSignificant) {
  // 55% vs 45% on 20 samples each: far from significant.
  auto m = diff_of("a;x 11\na;y 9\n", "a;x 9\na;y 11\n");
  EXPECT_FALSE(function(m, "x")->inclusive.significant);
  EXPECT_TRUE(regressions(m, 0).empty());
  // The same shares on 20,000 samples each are.
  auto big = diff_of("a;x 11000\na;y 9000\n", "a;x 9000\na;y 11000\n");
  EXPECT_TRUE(function(big, "y")->inclusive.significant);
  ASSERT_EQ(regressions(big, 5).size(), 1u);
  EXPECT_EQ(big.tree.name(big.functions[regressions(big, 5)[0]].name), "y");
}

// A profile weighted by bytes (hearth alloc, one sample per 524,288 B on average): the same 11:9
// against 9:11 as above, on 20 samples' worth of bytes each, is noise once the tests count
// samples (--per-sample), and "significant" when they take every byte for a sample. Shares,
// counts and the names in the texts stay the bytes'.
TEST(DiffModel, PerSampleTestsWeightedCountsAsTheSamplesTheyStandFor) {
  constexpr double kMean = 524288;
  const std::string base =
      "a;x " + std::to_string(11 * 524288) + "\na;y " + std::to_string(9 * 524288) + "\n";
  const std::string next =
      "a;x " + std::to_string(9 * 524288) + "\na;y " + std::to_string(11 * 524288) + "\n";
  auto as_bytes = diff_of(base, next, {.per_sample = kMean, .count_name = "bytes"});
  EXPECT_FALSE(function(as_bytes, "y")->inclusive.significant);
  EXPECT_TRUE(regressions(as_bytes, 0).empty());
  EXPECT_NEAR(function(as_bytes, "y")->inclusive.pp, 10, 1e-9);
  EXPECT_EQ(function(as_bytes, "y")->inclusive.next.value, 11 * kMean);
  auto naive = diff_of(base, next);
  EXPECT_TRUE(function(naive, "y")->inclusive.significant);
  // The z of the bytes divided by the mean equals the z of the samples themselves.
  auto samples = diff_of("a;x 11\na;y 9\n", "a;x 9\na;y 11\n");
  EXPECT_NEAR(function(as_bytes, "y")->inclusive.z, function(samples, "y")->inclusive.z, 1e-9);
  // --min-samples counts samples too: 20 of them each.
  auto few = diff_of(base, next, {.min_samples = 21, .per_sample = kMean});
  EXPECT_FALSE(function(few, "y")->tested);
  // The texts say bytes and the unit of the tests.
  ReportOptions ro;
  ro.base_name = "base.folded";
  ro.new_name = "new.folded";
  const std::string text = summary_text(as_bytes, ro);
  EXPECT_NE(text.find("(10,485,760 bytes) -> NEW new.folded (10,485,760 bytes)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("on samples of 524288 bytes"), std::string::npos) << text;
  const std::string j = summary_json(as_bytes, ro);
  EXPECT_NE(j.find("\"count_name\": \"bytes\",\n  \"per_sample\": 524288,"), std::string::npos)
      << j;
  EXPECT_EQ(summary_json(samples, ro).find("per_sample"), std::string::npos);  // as it was
}

TEST(DiffModel, MinSamplesLeavesSmallItemsUntested) {
  auto m = diff_of("a;x 5000\na;tiny 10\n", "a;x 5000\na;tiny 90\n", {.min_samples = 100});
  EXPECT_FALSE(function(m, "tiny")->tested);
  EXPECT_FALSE(function(m, "tiny")->inclusive.significant);
  EXPECT_TRUE(function(m, "x")->tested);
  auto all = diff_of("a;x 5000\na;tiny 10\n", "a;x 5000\na;tiny 90\n");
  EXPECT_TRUE(function(all, "tiny")->inclusive.significant);
  EXPECT_GT(all.function_tests, m.function_tests);
}

TEST(DiffModel, WithoutNormalizingSharesAreOfBase) {
  auto m = diff_of("a;x 100\na;y 100\n", "a;x 100\na;y 300\n", {.normalize = false});
  const Item* y = function(m, "y");
  EXPECT_DOUBLE_EQ(y->inclusive.base_share, 50);
  EXPECT_DOUBLE_EQ(y->inclusive.new_share, 150);
  EXPECT_DOUBLE_EQ(function(m, "x")->inclusive.pp, 0);
  EXPECT_TRUE(y->inclusive.significant);
  // Normalised, x shrank: 50% -> 25%.
  auto n = diff_of("a;x 100\na;y 100\n", "a;x 100\na;y 300\n");
  EXPECT_DOUBLE_EQ(function(n, "x")->inclusive.pp, -25);
}

TEST(DiffReport, FoldedOutIsDifffoldedFormat) {
  auto m = diff_of("a;b 10\na;c 10\n", "a;b 30\na;d 10\n");
  // Normalised: BASE scaled to NEW's total (40 / 20 = 2x).
  EXPECT_EQ(diff_folded(m), "a;b 20 30\na;c 20 0\na;d 0 10\n");
  auto raw = diff_of("a;b 10\na;c 10\n", "a;b 30\na;d 10\n", {.normalize = false});
  EXPECT_EQ(diff_folded(raw), "a;b 10 30\na;c 10 0\na;d 0 10\n");
  // And our reader takes it back as a differential profile.
  FrameTree t = tree_of(diff_folded(raw));
  EXPECT_TRUE(t.differential());
  EXPECT_EQ(t.total().value, 40);
  EXPECT_EQ(t.base_total(profile::kRoot).value, 20);
}

TEST(DiffReport, JsonIsEscapedAndComplete) {
  auto m = diff_of("a;\"q\\x 10\na;b 10\n", "a;\"q\\x 10\na;b 30\n");
  std::string j = summary_json(m, {.base_name = "b.folded", .new_name = "n.folded"});
  EXPECT_NE(j.find("\"name\": \"\\\"q\\\\x\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"result\": \"none\""), std::string::npos);
  EXPECT_NE(j.find("\"fail_above_pp\": null"), std::string::npos);
  EXPECT_NE(j.find("\"file\": \"b.folded\", \"samples\": 20"), std::string::npos);
  EXPECT_EQ(j.back(), '\n');
  // Balanced braces and brackets outside strings.
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < j.size(); ++i) {
    char c = j[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      ASSERT_GT(depth, 0);
      --depth;
    }
  }
  EXPECT_EQ(depth, 0);
}

TEST(DiffPicture, ColourScale) {
  scene::Rgb grey = diff_color(0, true);
  EXPECT_EQ(grey, diff_color(0, false));
  EXPECT_EQ(grey.r, grey.g);
  EXPECT_NE(grey, (scene::Rgb{255, 255, 255}));  // neutral is grey, not white
  auto distance = [&](scene::Rgb c) {
    return std::abs(c.r - grey.r) + std::abs(c.g - grey.g) + std::abs(c.b - grey.b);
  };
  // Small changes are visible whatever the largest change is: 0.1 pp is a clear tint.
  EXPECT_GT(distance(diff_color(0.1, true)), 60);
  EXPECT_LT(distance(diff_color(0.1, true)), distance(diff_color(1, true)));
  EXPECT_LT(distance(diff_color(1, true)), distance(diff_color(10, true)));
  EXPECT_EQ(diff_color(10, true), diff_color(50, true));  // saturates
  scene::Rgb up = diff_color(1, true), down = diff_color(-1, true);
  EXPECT_GT(up.r, up.b);
  EXPECT_GT(down.b, down.r);
  EXPECT_LT(distance(diff_color(1, false)), distance(up));  // not significant: muted
}

const scene::Layer* layer(const scene::Scene& s, std::string_view id) {
  for (const scene::Layer& l : s.layers) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

TEST(DiffPicture, FramesTitlesOutlinesAndMissingStrip) {
  auto m = diff_of("[w tid=1];a;b 100\n[w tid=1];a;old 50\n",
                   "[w tid=2];a;b 100\n[w tid=2];a;fresh 100\n");
  PictureStats st;
  scene::Scene s = layout_diff(m, {.base_name = "b", .new_name = "n"}, &st);
  EXPECT_EQ(s.kind, "flame");  // the flamegraph's script and style: zoom, search, keyboard
  const scene::Layer* frames = layer(s, "frames");
  ASSERT_TRUE(frames);
  std::regex title(R"(^.+ \([0-9,]+ samples, [0-9]+\.[0-9]{2}%; (\+|-)?[0-9]+\.[0-9]{2} pp.*\)$)");
  const scene::Rect* fresh = nullptr;
  const scene::Rect* b = nullptr;
  for (const scene::Rect& r : frames->rects) {
    EXPECT_TRUE(std::regex_match(r.title, title)) << r.title;
    if (r.title.starts_with("fresh ")) fresh = &r;
    if (r.title.starts_with("b ")) b = &r;
    EXPECT_EQ(r.title.find("old "), std::string::npos);  // removed: no width in NEW
  }
  ASSERT_TRUE(fresh && b);
  EXPECT_EQ(fresh->title, "fresh (100 samples, 50.00%; +50.00 pp; only in NEW)");
  EXPECT_GT(fresh->stroke_width, 0);
  EXPECT_EQ(b->stroke_width, 0);
  EXPECT_EQ(b->title, "b (100 samples, 50.00%; -16.67 pp)");
  EXPECT_EQ(frames->rects[1].css_class, "t");  // the thread root keeps its class and legend
  EXPECT_TRUE(layer(s, "threads"));
  const scene::Layer* missing = layer(s, "missing");
  ASSERT_TRUE(missing);
  ASSERT_EQ(missing->rects.size(), 1u);
  EXPECT_EQ(missing->rects[0].title, "[w];a;old (50 samples, 33.33%; -33.33 pp)");
  EXPECT_EQ(st.missing, 1u);

  // Widths from BASE: the removed path is drawn (outlined), the added one listed.
  scene::Scene sb = layout_diff(m, {.base_widths = true}, nullptr);
  bool old_drawn = false;
  for (const scene::Rect& r : layer(sb, "frames")->rects) {
    if (r.title.starts_with("old ")) {
      old_drawn = true;
      EXPECT_GT(r.stroke_width, 0);
      EXPECT_NE(r.title.find("only in BASE"), std::string::npos);
    }
  }
  EXPECT_TRUE(old_drawn);
  ASSERT_TRUE(layer(sb, "missing"));
  EXPECT_TRUE(layer(sb, "missing")->rects[0].title.starts_with("[w];a;fresh (100 samples"));
}

// A deep recursion in both profiles: the frames tied at the --max-frames cut are kept from the
// root down, as in `hearth flame` (only "all" was drawn).
TEST(DiffPicture, MaxFramesKeepsTiedFramesFromTheRootDown) {
  std::string chain;
  for (int i = 0; i < 300; ++i) {
    chain += i > 0 ? ";f" : "f";
    chain += std::to_string(i);
  }
  auto m = diff_of(chain + " 5\n", chain + " 7\nother 1\n");
  PictureStats st;
  for (bool base_widths : {false, true}) {
    scene::Scene s = layout_diff(m, {.base_widths = base_widths, .max_frames = 100}, &st);
    EXPECT_EQ(st.flame.frames, 100u);
    EXPECT_EQ(st.flame.max_depth, 99);
    const scene::Layer* frames = layer(s, "frames");
    ASSERT_TRUE(frames);
    ASSERT_EQ(frames->rects.size(), 100u);
    for (size_t i = 0; i < 99; ++i) {
      std::string_view t = frames->rects[i + 1].title;
      std::string want = std::to_string(i);
      EXPECT_EQ(t.substr(0, t.find(' ')), want.insert(0, 1, 'f'));
    }
    EXPECT_EQ(st.flame.deep, 201u);
    EXPECT_EQ(st.flame.narrow, 1u);  // "other"
  }
}

// Sample counts are whole numbers, exact in every output.
TEST(DiffReport, LargeCountsAreExact) {
  auto m = diff_of("a;b 9223372036854775807\n", "a;b 9223372036854775806\na;c 3\n");
  EXPECT_EQ(m.base_total.whole, 9223372036854775807u);
  EXPECT_EQ(m.new_total.whole, 9223372036854775809u);
  std::string j = summary_json(m, {.base_name = "b", .new_name = "n"});
  EXPECT_NE(j.find("\"file\": \"b\", \"samples\": 9223372036854775807}"), std::string::npos) << j;
  EXPECT_NE(j.find("\"file\": \"n\", \"samples\": 9223372036854775809}"), std::string::npos);
  EXPECT_NE(j.find("{\"base\": 9223372036854775807, \"new\": 9223372036854775806,"),
            std::string::npos);
  std::string text = summary_text(m, {.base_name = "b", .new_name = "n"});
  EXPECT_NE(text.find("(9,223,372,036,854,775,807 samples) -> NEW n "
                      "(9,223,372,036,854,775,809 samples)"),
            std::string::npos)
      << text;
  EXPECT_EQ(diff_folded(diff_of("a 9223372036854775807\n", "a 9223372036854775807\n")),
            "a 9223372036854775807 9223372036854775807\n");
  scene::Scene s = layout_diff(m, {}, nullptr);
  EXPECT_TRUE(
      layer(s, "frames")->rects[2].title.starts_with("b (9,223,372,036,854,775,806 samples"));
}

TEST(DiffCli, ValidationReportsEveryProblem) {
  cli::DiffArgs ok;
  ok.inputs = {"a.folded", "b.folded"};
  ok.output = "d.svg";
  ok.summary = "s.json";
  ok.fail_above = "0.5";
  EXPECT_TRUE(cli::validate_diff(ok).empty());
  cli::DiffArgs bad = ok;
  bad.inputs = {"a.folded"};
  bad.output = "d.gif";
  bad.summary = "s.txt";
  bad.fail_above = "-1";
  bad.min_samples = -3;
  EXPECT_EQ(cli::validate_diff(bad).size(), 5u);
  bad = ok;
  bad.inputs = {"-", "-"};
  ASSERT_EQ(cli::validate_diff(bad).size(), 1u);
  EXPECT_NE(cli::validate_diff(bad)[0].find("only once"), std::string::npos);
}

// BASE and NEW read straight into one tree, as `hearth diff` does.
DiffModel diff_read_merged(std::string_view base, std::string_view next, DiffOptions o = {}) {
  FrameTree t = empty_merged_tree();
  profile::FoldedReader rb(t, merged_read_options(true));
  rb.read_text(base);
  EXPECT_TRUE(has_samples(t, true));
  EXPECT_FALSE(has_samples(t, false));
  profile::FoldedReader rn(t, merged_read_options(false));
  rn.read_text(next);
  t.finalize();
  return build_diff_merged(std::move(t), o);
}

void expect_same_measure(const Measure& a, const Measure& b, const std::string& what) {
  EXPECT_EQ(a.base.value, b.base.value) << what;
  EXPECT_EQ(a.next.value, b.next.value) << what;
  EXPECT_EQ(a.base.fractional, b.base.fractional) << what;
  EXPECT_EQ(a.pp, b.pp) << what;
  EXPECT_EQ(a.z, b.z) << what;
  EXPECT_EQ(a.significant, b.significant) << what;
}

// Every path, function and writer output of two models agree.
void expect_same_model(const DiffModel& a, const DiffModel& b) {
  ASSERT_EQ(a.tree.size(), b.tree.size());
  for (size_t i = 0; i < a.tree.size(); ++i) {
    NodeId id = static_cast<NodeId>(i);
    ASSERT_EQ(path_name(a, id), path_name(b, id));
    Item x = path_item(a, id), y = path_item(b, id);
    expect_same_measure(x.inclusive, y.inclusive, path_name(a, id));
    expect_same_measure(x.self, y.self, path_name(a, id));
    EXPECT_EQ(x.tested, y.tested);
  }
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t i = 0; i < a.functions.size(); ++i) {
    ASSERT_EQ(a.tree.name(a.functions[i].name), b.tree.name(b.functions[i].name));
    expect_same_measure(a.functions[i].inclusive, b.functions[i].inclusive, "function");
    expect_same_measure(a.functions[i].self, b.functions[i].self, "function");
  }
  EXPECT_EQ(a.path_tests, b.path_tests);
  EXPECT_EQ(a.function_tests, b.function_tests);
  ReportOptions ro;
  EXPECT_EQ(summary_json(a, ro), summary_json(b, ro));
  EXPECT_EQ(summary_markdown(a, ro), summary_markdown(b, ro));
  EXPECT_EQ(diff_folded(a), diff_folded(b));
}

TEST(DiffModel, ReadingIntoOneTreeEqualsMergingTwo) {
  Profile p = server_profile();
  std::string base = sample(p, 20000, 7);
  std::string next = sample(inject(p, "memcpy", 3), 15000, 8);
  expect_same_model(diff_of(base, next), diff_read_merged(base, next));
  DiffOptions raw;
  raw.normalize = false;
  raw.min_samples = 50;
  expect_same_model(diff_of(base, next, raw), diff_read_merged(base, next, raw));
  // Two-count lines count their last (NEW) column; fractional counts make every count one.
  std::string odd = "[main tid=1];a;b 3 5\n[main tid=2];a;c 0.5\n[main tid=3];a 2\n";
  expect_same_model(diff_of(odd, next), diff_read_merged(odd, next));
  expect_same_model(diff_of(base, odd), diff_read_merged(base, odd));
}

// A parent with 10,000 children in both profiles (and a few only in one): every child is found
// again by name, with its own counts, whatever the fan-out.
TEST(DiffModel, WideFanOut) {
  constexpr int kChildren = 10000;
  std::string base, next;
  for (int i = 0; i < kChildren; ++i) {
    std::string leaf = "[worker-1 tid=7];dispatch;handler_" + std::to_string(i);
    base += leaf + " " + std::to_string(1 + i % 5) + "\n";
    // NEW: the same children in the reverse order, each with its count doubled but the
    // first 10, which are gone, and handler_9999's count grown to 5,000.
    int j = kChildren - 1 - i;
    std::string same = "[worker-1 tid=8];dispatch;handler_" + std::to_string(j);
    if (j >= 10) next += same + " " + std::to_string(j == 9999 ? 5000 : 2 * (1 + j % 5)) + "\n";
  }
  next += "[worker-1 tid=8];dispatch;handler_new 4\n";
  for (auto* build : {&diff_of, &diff_read_merged}) {
    DiffModel m = (*build)(base, next, {});
    ASSERT_EQ(m.tree.size(), 1 + 2 + kChildren + 1u);  // all, [worker-1], dispatch, children
    std::optional<Item> d = path(m, "[worker-1];dispatch");
    ASSERT_TRUE(d);
    EXPECT_EQ(m.tree.child_count(d->node), kChildren + 1u);
    for (int i = 0; i < kChildren; i += 97) {
      std::optional<Item> h = path(m, "[worker-1];dispatch;handler_" + std::to_string(i));
      ASSERT_TRUE(h) << i;
      double b = 1 + i % 5;
      EXPECT_EQ(h->inclusive.base.value, b) << i;
      EXPECT_EQ(h->inclusive.next.value, i < 10 ? 0 : i == 9999 ? 5000 : 2 * b) << i;
    }
    std::vector<NodeId> removed = only_in_one(m, false), added = only_in_one(m, true);
    ASSERT_EQ(removed.size(), 10u);
    for (NodeId n : removed) {
      EXPECT_LT(std::stoi(std::string(m.tree.name(m.tree.node(n).name)).substr(8)), 10);
    }
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(path_name(m, added[0]), "[worker-1];dispatch;handler_new");
    std::vector<NodeId> grew = significant_paths(m, 1);
    ASSERT_FALSE(grew.empty());
    EXPECT_EQ(path_name(m, grew[0]), "[worker-1];dispatch;handler_9999");
    ASSERT_FALSE(regressions(m, 1).empty());
    EXPECT_EQ(m.tree.name(m.functions[regressions(m, 1)[0]].name), "handler_9999");
  }
  expect_same_model(diff_of(base, next), diff_read_merged(base, next));
}

}  // namespace
}  // namespace hearth::diff
