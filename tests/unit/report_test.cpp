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

TEST(ReportRegex, EscapesEverySpecialCharacter) {
  EXPECT_EQ(regex_literal("[a tid=1]"), "\\[a tid=1\\]");
  EXPECT_EQ(regex_literal("a.b*c+d?(e)|{f}^$\\/"),
            "a\\.b\\*c\\+d\\?\\(e\\)\\|\\{f\\}\\^\\$\\\\\\/");
}

}  // namespace
}  // namespace hearth::report
