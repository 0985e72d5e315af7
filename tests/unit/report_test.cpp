// Report directories: pictures and index.html from a real capture (tests/golden/inputs/report:
// `hearth record` of stack_target, 2 s), byte for byte against
// tests/golden/expected/report-index.html. After an intended change, regenerate with
// HEARTH_UPDATE_GOLDEN=1 build/tests/unit/unit_tests --gtest_filter='Report*' and review the diff.
#include "render/report/report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace hearth::report {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hearth-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(inputs_)) fs::copy(e.path(), dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  const fs::path inputs_ = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs/report";
  const fs::path expected_ =
      fs::path(HEARTH_SOURCE_DIR) / "tests/golden/expected/report-index.html";
  fs::path dir_;
};

TEST_F(Report, IndexMatchesTheGoldenFile) {
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->pictures, (std::vector<std::string>{"flame.svg", "sched.svg"}));
  std::string html = slurp(dir_ / "index.html");
  if (std::getenv("HEARTH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected_, std::ios::binary) << html;
  }
  EXPECT_EQ(html, slurp(expected_)) << "regenerate: HEARTH_UPDATE_GOLDEN=1 (see the file's top)";
}

// `hearth record --alloc bytes,live` of heap_target (tests/golden/inputs/report-alloc: the
// allocation profiles alone, no other collector): the Memory section, its two flamegraphs in the
// mem palette with what was sampled under their titles, the collector's figures in words; byte
// for byte against tests/golden/expected/report-alloc-index.html (regenerate as above).
TEST(ReportAlloc, MemorySectionMatchesTheGoldenFile) {
  const fs::path inputs = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs/report-alloc";
  const fs::path expected =
      fs::path(HEARTH_SOURCE_DIR) / "tests/golden/expected/report-alloc-index.html";
  const fs::path dir =
      fs::temp_directory_path() / ("hearth-report-alloc-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(inputs)) fs::copy(e.path(), dir);
  auto r = render_report({.dir = dir.string()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->pictures, (std::vector<std::string>{"alloc.svg", "alloc.live.svg"}));
  const std::string html = slurp(dir / "index.html");
  const std::string svg = slurp(dir / "alloc.live.svg");
  const std::string bytes_svg = slurp(dir / "alloc.svg");
  fs::remove_all(dir);
  if (std::getenv("HEARTH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected, std::ios::binary) << html;
  }
  EXPECT_EQ(html, slurp(expected)) << "regenerate: HEARTH_UPDATE_GOLDEN=1 (see the file's top)";
  EXPECT_NE(html.find("<section id=\"mem\"><h2>Memory: where the bytes are allocated</h2>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>alloc</td><td>ok</td><td>4,355 samples of 26,000 allocator calls"),
            std::string::npos);
  // The live view: the kept sites, none of the freed ones; widths in bytes; what was sampled and
  // freed under the title.
  EXPECT_NE(svg.find("heap_keep_big"), std::string::npos);
  EXPECT_EQ(svg.find("heap_free_all"), std::string::npos);
  EXPECT_NE(svg.find(" bytes, "), std::string::npos);
  EXPECT_NE(svg.find("live: 1,247 sampled blocks (3,108 freed, 0 dropped: map full)"),
            std::string::npos);
  EXPECT_NE(bytes_svg.find("heap_free_all"), std::string::npos);
  EXPECT_NE(bytes_svg.find("4,355 samples of 26,000 calls (0 lost), one per 8 KiB on average"),
            std::string::npos);
}

TEST_F(Report, PageHasEverySectionAndAThreadsTableThatLinksIntoTheFlamegraph) {
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value());
  std::string html = slurp(dir_ / "index.html");
  for (const char* id : {"id=\"summary\"", "id=\"stacks\"", "id=\"sched\"", "id=\"threads\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  EXPECT_EQ(html.find("id=\"metrics\""), std::string::npos);  // no mmv.tsv in this capture
  EXPECT_NE(html.find("data=\"flame.svg\""), std::string::npos);
  EXPECT_NE(html.find("skipped: no MMV file of pid 345"), std::string::npos);
  // One row per thread (9 in the capture), each name a link that searches for its root frame.
  EXPECT_EQ(r->threads, 9u);
  EXPECT_NE(html.find("href=\"flame.svg?s=%5C%5Bspin-0%20tid%3D348%5C%5D\""), std::string::npos);
  // Each tid a link to its row of the scheduler charts, which carries that id.
  EXPECT_NE(html.find("<a href=\"sched.svg#thread-348\""), std::string::npos);
  EXPECT_NE(slurp(dir_ / "sched.svg").find("<g class=\"row\" id=\"thread-348\">"),
            std::string::npos);
  // Nothing external: the page works offline.
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_TRUE(fs::file_size(dir_ / "flame.svg") > 1000);
  EXPECT_TRUE(fs::file_size(dir_ / "sched.svg") > 1000);
}

TEST_F(Report, RenderingTwiceGivesTheSameFiles) {
  ASSERT_TRUE(render_report({.dir = dir_.string()}).has_value());
  std::string first = slurp(dir_ / "index.html"), flame = slurp(dir_ / "flame.svg");
  ASSERT_TRUE(render_report({.dir = dir_.string()}).has_value());
  EXPECT_EQ(slurp(dir_ / "index.html"), first);
  EXPECT_EQ(slurp(dir_ / "flame.svg"), flame);
}

TEST_F(Report, BaselineAddsTheDiffView) {
  fs::path base = dir_.string() + "-base";
  fs::remove_all(base);
  fs::create_directories(base);
  // The baseline: the same capture with one thread's stacks ten times over (significant).
  std::ifstream in(dir_ / "stacks.folded");
  std::ofstream out(base / "stacks.folded");
  std::string line;
  while (std::getline(in, line)) {
    out << line << "\n";
    for (int k = 0; k < 9 && line.rfind("[spin-0 tid=348]", 0) == 0; ++k) out << line << "\n";
  }
  out.close();
  auto r = render_report({.dir = dir_.string(), .baseline_dir = base.string()});
  fs::remove_all(base);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->pictures.front(), "diff.svg");
  std::string html = slurp(dir_ / "index.html");
  EXPECT_NE(html.find("id=\"diff\""), std::string::npos);
  EXPECT_LT(html.find("id=\"diff\""), html.find("id=\"stacks\""));
  EXPECT_TRUE(fs::exists(dir_ / "diff.md"));
  EXPECT_NE(slurp(dir_ / "diff.md").find("spin-0"), std::string::npos);
}

TEST_F(Report, DamagedInputsAreProblemsAndTheRestIsStillRendered) {
  std::ofstream(dir_ / "sched.tenancy.tsv") << "# hearth sched.tenancy 1\ngarbage\n";
  std::ofstream(dir_ / "report.json") << "{not json";
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->problems.size(), 2u);
  EXPECT_NE(r->problems[0].find("report.json"), std::string::npos) << r->problems[0];
  EXPECT_NE(r->problems[1].find("sched.tenancy.tsv"), std::string::npos) << r->problems[1];
  EXPECT_EQ(r->pictures, (std::vector<std::string>{"flame.svg", "sched.svg"}));
  std::string html = slurp(dir_ / "index.html");
  EXPECT_NE(html.find("class=\"problems\""), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex("<title>hearth report: hearth-report-")));
}

// A version-2 sched.states.tsv with stopped time and a report.json with the sampling cost, as
// `hearth record` writes them now: the summary says the cost, the threads table has the stopped
// column (named after hearth when its sampler ran) and lists threads by what they did.
TEST_F(Report, SamplingCostAndStoppedTimeOfAVersion2Recording) {
  std::ifstream in(dir_ / "report.json");
  std::string meta((std::istreambuf_iterator<char>(in)), {});
  meta.insert(meta.rfind('}'),
              ",\n  \"sampling_cost\": {\"window_pct\": 0.0312, "
              "\"stop_median_us\": 45.4, \"threads\": 3, \"stopped_threads\": 2, "
              "\"stops\": 40, \"stopped_ms\": 1.9}\n");
  std::ofstream(dir_ / "report.json") << meta;
  // a: most on CPU; b and c: the same on-CPU time, c waited longer for a CPU; d: sched only.
  std::ofstream(dir_ / "sched.states.tsv")
      << "# hearth sched.states 2\n# window_ns\t0\t1000000000\t1000000000\n# lost\t0\n"
         "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
         "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\t"
         "stopped_ns\tswitches_stopped\n"
         "348\tspin-0\t345\t100000\t2000\t997000000\t0\t0\t1\t1\t0\t0\t900000\t20\n"
         "349\tspin-1\t345\t100000\t5000\t997000000\t0\t0\t1\t1\t0\t0\t1000000\t20\n"
         "350\tmutex-0\t345\t800000\t0\t999200000\t0\t0\t0\t1\t0\t0\t0\t0\n"
         "999\tsched-only\t345\t0\t0\t1000000000\t0\t0\t0\t0\t0\t0\t0\t0\n";
  fs::remove(dir_ / "sched.tenancy.tsv");
  fs::remove(dir_ / "sched.preemptors.tsv");
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  std::string html = slurp(dir_ / "index.html");
  EXPECT_NE(html.find("<tr><th>sampling cost</th><td>0.031% of the window, median 45 \xc2\xb5s per "
                      "thread per sample (scheduler's view: 2 of 3 threads stopped, 40 "
                      "stops)</td></tr>"),
            std::string::npos)
      << html.substr(0, 3000);
  EXPECT_NE(html.find("<th>blocked (D)</th><th>stopped by hearth</th><th>other</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>0 \xc2\xb5s</td><td>1.0 ms</td><td>0 \xc2\xb5s</td></tr>"),
            std::string::npos);
  // mutex-0 (most on CPU), spin-1 (longer runnable), spin-0, sched-only; then the threads the
  // scheduler did not see, by samples.
  size_t at[] = {html.find(">mutex-0</a>"), html.find(">spin-1</a>"), html.find(">spin-0</a>"),
                 html.find(">sched-only<"), html.find(">holder</a>")};
  for (size_t i = 0; i < std::size(at); ++i) {
    ASSERT_NE(at[i], std::string::npos) << i;
    if (i > 0) {
      EXPECT_LT(at[i - 1], at[i]) << i;
    }
  }
  EXPECT_NE(slurp(dir_ / "sched.svg").find(">stopped by hearth (t)</text>"), std::string::npos);
}

// Without hearth's sampler over the window, stopped time is some other tracer's.
TEST_F(Report, StoppedTimeIsATracersWhenTheSamplerDidNotRun) {
  std::ifstream in(dir_ / "report.json");
  std::string meta((std::istreambuf_iterator<char>(in)), {});
  size_t ok = meta.find("\"status\": \"ok\"", meta.find("\"stacks\""));
  ASSERT_NE(ok, std::string::npos);
  meta.replace(ok, 14, "\"status\": \"skipped\"");
  std::ofstream(dir_ / "report.json") << meta;
  ASSERT_TRUE(render_report({.dir = dir_.string()}).has_value());
  std::string html = slurp(dir_ / "index.html");
  EXPECT_NE(html.find("<th>stopped (traced)</th>"), std::string::npos);
  EXPECT_EQ(html.find("stopped by hearth"), std::string::npos);
  EXPECT_EQ(html.find("sampling cost"), std::string::npos);
  // This capture's sched.states.tsv is version 1: its stops are in other, none shown apart.
  EXPECT_NE(html.find("<td title=\"not told apart by a version-1 sched.states.tsv: in "
                      "other\">\xe2\x80\x93</td>"),
            std::string::npos);
  EXPECT_EQ(slurp(dir_ / "sched.svg").find(">stopped "), std::string::npos);
}

TEST(ReportSamplingCost, Text) {
  EXPECT_EQ(sampling_cost_text({.window_pct = 0.0312,
                                .stop_median_us = 45.4,
                                .threads = 15,
                                .stopped_threads = 3,
                                .stops = 120}),
            "0.031% of the window, median 45 \xc2\xb5s per thread per sample (scheduler's view: "
            "3 of 15 threads stopped, 120 stops)");
  EXPECT_EQ(sampling_cost_text({.window_pct = 2.345,
                                .stop_median_us = 0.4,
                                .threads = 1,
                                .stopped_threads = 1,
                                .stops = 1}),
            "2.3% of the window, median <1 \xc2\xb5s per thread per sample (scheduler's view: 1 "
            "of 1 thread stopped, 1 stop)");
  EXPECT_EQ(sampling_cost_text({.window_pct = 0.0000004,
                                .stop_median_us = 3,
                                .threads = 4,
                                .stopped_threads = 1,
                                .stops = 1})
                .substr(0, 8),
            "<0.001% ");
  EXPECT_EQ(sampling_cost_text({.window_pct = 12.5,
                                .stop_median_us = 1500,
                                .threads = 2,
                                .stopped_threads = 2,
                                .stops = 9})
                .substr(0, 38),
            "12% of the window, median 1500 \xc2\xb5s per");
  EXPECT_EQ(sampling_cost_text({.threads = 15}),
            "0% of the window: no thread was stopped (scheduler's view, 15 threads)");
}

TEST(ReportRegex, EscapesEverySpecialCharacter) {
  EXPECT_EQ(regex_literal("[a tid=1]"), "\\[a tid=1\\]");
  EXPECT_EQ(regex_literal("a.b*c+d?(e)|{f}^$\\/"),
            "a\\.b\\*c\\+d\\?\\(e\\)\\|\\{f\\}\\^\\$\\\\\\/");
}

}  // namespace
}  // namespace hearth::report
