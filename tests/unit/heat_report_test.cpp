// The report's heatmap section (render/report/heat_section.h): a report directory with timed
// samples (or only raw samples) gets heat.svg in the page and heat.html beside it; a damaged
// samples file is a problem of the page, and what came before the damage is still drawn.
#include "render/report/heat_section.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "render/report/report.h"

namespace hearth::report {
namespace {

namespace fs = std::filesystem;

std::string heat_slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HeatReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hearth-heat-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(inputs_ / "report")) fs::copy(e.path(), dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  const fs::path inputs_ = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs";
  fs::path dir_;
};

TEST_F(HeatReport, TimedSamplesGiveTheWhenSection) {
  fs::copy(inputs_ / "heat/small.samples.txt", dir_ / kStacksSamples);
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->pictures, (std::vector<std::string>{"flame.svg", "heat.html", "heat.svg", "sched.svg"}));
  const std::string html = heat_slurp(dir_ / "index.html");
  EXPECT_NE(html.find("<section id=\"when\">"), std::string::npos);
  EXPECT_NE(html.find("href=\"#when\""), std::string::npos);
  EXPECT_NE(html.find("data=\"heat.svg\""), std::string::npos);
  EXPECT_NE(html.find("href=\"heat.html\""), std::string::npos);
  EXPECT_NE(html.find("30 samples of 4 threads"), std::string::npos);
  const std::string page = heat_slurp(dir_ / "heat.html");
  EXPECT_NE(page.find("id=\"heat-data\""), std::string::npos);
  EXPECT_NE(page.find("\"source\":\"stacks.samples.txt\""), std::string::npos);
  // The section comes right after the flamegraph's.
  EXPECT_LT(html.find("<section id=\"stacks\">"), html.find("<section id=\"when\">"));
  EXPECT_LT(html.find("<section id=\"when\">"), html.find("<section id=\"sched\">"));
}

TEST_F(HeatReport, RawSamplesAreReadToo) {
  std::ofstream(dir_ / "stacks.raw.txt")
      << "# hearth stacks raw 1\tpid=7\tname=x\n"
         "# time_ns\ttid\tstate\tstack\n"
         "# round 0\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
         "0\t7\tR\t[x tid=7];main;work\n"
         "# round 100000000\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
         "100000000\t7\tD\t[x tid=7];main;read\n";
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_TRUE(fs::exists(dir_ / kHeatHtml));
  EXPECT_TRUE(fs::exists(dir_ / kHeatSvg));
  EXPECT_NE(heat_slurp(dir_ / "index.html").find("href=\"stacks.raw.txt\""), std::string::npos);
}

TEST_F(HeatReport, DamageIsAProblemAndThePartBeforeIsDrawn) {
  fs::copy(inputs_ / "heat/damaged.samples.txt", dir_ / kStacksSamples);
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find("stacks.samples.txt:61: "), std::string::npos) << r->problems[0];
  EXPECT_TRUE(fs::exists(dir_ / kHeatHtml));
  EXPECT_NE(heat_slurp(dir_ / "heat.html").find("\"damage\":\""), std::string::npos);
  EXPECT_NE(heat_slurp(dir_ / "index.html").find("15 samples of 4 threads"), std::string::npos);
}

TEST_F(HeatReport, NoSamplesNoSection) {
  auto r = render_report({.dir = dir_.string()});
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(fs::exists(dir_ / kHeatHtml));
  EXPECT_EQ(heat_slurp(dir_ / "index.html").find("id=\"when\""), std::string::npos);
}

}  // namespace
}  // namespace hearth::report
