// The report's timeline section (render/report/timeline_section.h): a report directory with
// scheduler intervals gets timeline.svg in the page and timeline.html beside it, with the moment
// link when the heatmap is there; a damaged intervals file is a problem of the page naming the
// file and line, and what came before the damage is still drawn; no intervals, no section.
#include "render/report/timeline_section.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/report/report.h"
#include "tests/unit/temp_dir.h"

namespace hearth::report {
namespace timeline_report_test {

namespace fs = std::filesystem;

std::string slurp_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path kInputs = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs";

void copy_recording(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(kInputs / "timeline")) {
    fs::copy(e.path(), fs::path(dir) / e.path().filename());
  }
}

TEST(TimelineReport, IntervalsGiveTheTimelineSection) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  copy_recording(dir.path());
  auto r = render_report({.dir = dir.path()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->pictures, (std::vector<std::string>{"heat.html", "heat.svg", "timeline.html",
                                                   "timeline.svg", "sched.svg", "when.html"}));
  const std::string html = slurp_text(fs::path(dir.path()) / "index.html");
  EXPECT_NE(html.find("<section id=\"timeline\">"), std::string::npos);
  EXPECT_NE(html.find("href=\"#timeline\""), std::string::npos);
  EXPECT_NE(html.find("data=\"timeline.svg\""), std::string::npos);
  EXPECT_NE(html.find("href=\"timeline.html\""), std::string::npos);
  EXPECT_NE(html.find("5 threads, 837 intervals; whole intervals for the window's last 1 s"),
            std::string::npos)
      << html.substr(html.find("<section id=\"timeline\">"), 1500);
  // After the heatmap's section, whose page the moment link opens.
  EXPECT_LT(html.find("<section id=\"when\">"), html.find("<section id=\"timeline\">"));
  const std::string page = slurp_text(fs::path(dir.path()) / "timeline.html");
  EXPECT_NE(page.find("\"heatmap\":\"heat.html\""), std::string::npos);
  EXPECT_NE(page.find("\"source\":\"sched.intervals.tsv\""), std::string::npos);
  const std::string svg = slurp_text(fs::path(dir.path()) / "timeline.svg");
  EXPECT_NE(svg.find("class=\"hearth timelanes\""), std::string::npos);
  // Both are files the report writes (the output guard knows them).
  const std::vector<std::string> written = rendered_files(dir.path());
  EXPECT_NE(std::find(written.begin(), written.end(), dir / "timeline.html"), written.end());
}

TEST(TimelineReport, DamagedIntervalsAreAProblemAndTheRestIsDrawn) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  copy_recording(dir.path());
  fs::copy(kInputs / "timeline-damaged.sched.intervals.tsv", dir / "sched.intervals.tsv",
           fs::copy_options::overwrite_existing);
  auto r = render_report({.dir = dir.path()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0],
            "sched.intervals.tsv:21: cpu `x1` is not an integer from -1 to 8191 (the timeline "
            "draws what comes before it)");
  EXPECT_TRUE(fs::exists(dir / "timeline.svg"));
  const std::string svg = slurp_text(dir / "timeline.svg");
  EXPECT_NE(svg.find("damaged input: sched.intervals.tsv:21:"), std::string::npos);
  // The samples still give lanes to the threads whose intervals were lost.
  EXPECT_NE(svg.find("flusher (tid 104)"), std::string::npos);
}

TEST(TimelineReport, NoIntervalsNoSection) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fs::copy(kInputs / "timeline/stacks.samples.txt", dir / "stacks.samples.txt");
  auto r = render_report({.dir = dir.path()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "timeline.html"));
  EXPECT_EQ(slurp_text(dir / "index.html").find("id=\"timeline\""), std::string::npos);
}

}  // namespace timeline_report_test
}  // namespace hearth::report
