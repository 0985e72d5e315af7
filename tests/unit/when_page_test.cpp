// The report's time view (render/report/when_page.h): which pictures it links and why not, the
// page it writes, and a report directory with samples, intervals and a CLOCK_REALTIME metric
// series (tests/golden/inputs/timeline + when) getting when.html, linked from the index, with
// the metric charts carrying their time axis for the link (templates/metrics.js).
#include "render/report/when_page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/report/report.h"
#include "tests/unit/temp_dir.h"

namespace hearth::report {
namespace when_page_test {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WhenPage, HeatmapAndTimelineAreLinked) {
  const WhenOptions o = when_options(
      {.heat = true, .timeline = true, .samples_real_ns = 5, .samples_mono_ns = 7}, "app (pid 1)");
  ASSERT_EQ(o.pictures.size(), 2u);
  EXPECT_EQ(o.pictures[0].src, "timeline.html");  // the heatmap's page grows: last
  EXPECT_EQ(o.pictures[1].src, "heat.html");
  EXPECT_TRUE(o.pictures[0].linked && o.pictures[1].linked);
  EXPECT_EQ(o.title, "When: app (pid 1)");
  EXPECT_EQ(o.real_ns, 5u);
  EXPECT_NE(o.info.find("CLOCK_MONOTONIC"), std::string::npos) << o.info;
  EXPECT_TRUE(o.notes.empty());
}

TEST(WhenPage, MetricsNeedTheirWallClockAndTheSamples) {
  // CLOCK_REALTIME series and samples that recorded their wall clock: on the axis.
  WhenOptions o = when_options({.heat = true,
                                .metrics = true,
                                .metrics_clock = "realtime",
                                .samples_real_ns = 1795762269000000000u,
                                .samples_mono_ns = 1},
                               "app");
  ASSERT_EQ(o.pictures.size(), 2u);
  EXPECT_EQ(o.pictures[0].src, "metrics.svg");
  EXPECT_TRUE(o.pictures[0].linked);
  EXPECT_NE(o.info.find("CLOCK_REALTIME"), std::string::npos);
  // A relative clock (--reproducible): shown beside the timeline, not linked, and said why.
  o = when_options({.heat = true,
                    .timeline = true,
                    .metrics = true,
                    .metrics_clock = "relative",
                    .samples_real_ns = 1,
                    .samples_mono_ns = 1},
                   "app");
  ASSERT_EQ(o.pictures.size(), 3u);
  EXPECT_FALSE(o.pictures[1].linked);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("\"relative\""), std::string::npos) << o.notes[0];
  // Nothing to link the heatmap with: no page.
  EXPECT_TRUE(
      when_options(
          {.heat = true, .metrics = true, .metrics_clock = "relative", .samples_real_ns = 1}, "app")
          .pictures.empty());
  EXPECT_TRUE(when_options({.heat = true, .metrics = true, .metrics_clock = "realtime"}, "app")
                  .pictures.empty());
  // No heatmap (no samples): no instant to show, no page.
  EXPECT_TRUE(when_options({.timeline = true, .metrics = true, .metrics_clock = "realtime"}, "app")
                  .pictures.empty());
}

TEST(WhenPage, PageCarriesItsDataEscaped) {
  WhenOptions o = when_options({.heat = true, .timeline = true, .samples_real_ns = 42}, "a<b>");
  const std::string html = when_page(o);
  EXPECT_NE(html.find("<title>When: a&lt;b&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("\"real_ns\":\"42\""), std::string::npos);
  EXPECT_NE(html.find("{\"name\":\"heat\",\"src\":\"heat.html\""), std::string::npos);
  EXPECT_LT(html.find("\"src\":\"timeline.html\""), html.find("\"src\":\"heat.html\""));
  EXPECT_NE(html.find("\"linked\":true"), std::string::npos);
  EXPECT_NE(html.find("window.hearthWhen"), std::string::npos);
  EXPECT_EQ(html.find("{{"), std::string::npos);
}

TEST(WhenPage, ReportWritesTheTimeView) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const fs::path inputs = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs";
  for (const char* sub : {"timeline", "when"}) {
    for (const auto& e : fs::directory_iterator(inputs / sub)) {
      fs::copy(e.path(), fs::path(dir.path()) / e.path().filename());
    }
  }
  auto r = render_report({.dir = dir.path()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->pictures,
            (std::vector<std::string>{"heat.html", "heat.svg", "timeline.html", "timeline.svg",
                                      "sched.svg", "metrics.svg", "when.html"}));
  const std::string index = read_text(fs::path(dir.path()) / "index.html");
  const size_t when = index.find("<section id=\"when\">");
  ASSERT_NE(when, std::string::npos);
  EXPECT_NE(index.find("href=\"when.html\"", when), std::string::npos);
  const std::string page = read_text(fs::path(dir.path()) / "when.html");
  EXPECT_NE(page.find("\"real_ns\":\"1795762269000000000\""), std::string::npos);
  EXPECT_NE(page.find("\"src\":\"metrics.svg\",\"title\":\"Metrics\",\"linked\":true"),
            std::string::npos);
  // The charts' time axis: the series' first time (0.1 s after the samples' 0 s), 2 s wide.
  const std::string svg = read_text(fs::path(dir.path()) / "metrics.svg");
  EXPECT_NE(svg.find("data-t0-ns=\"1795762269100000000\" data-span-ns=\"2000000000\" "
                     "data-clock=\"realtime\""),
            std::string::npos);
  EXPECT_NE(svg.find("data-plot=\""), std::string::npos);
  EXPECT_NE(svg.find("function hearthTimeLink"), std::string::npos);
  // A file the report writes (the output guard knows it).
  const auto files = rendered_files(dir.path());
  EXPECT_NE(std::find(files.begin(), files.end(), (fs::path(dir.path()) / "when.html").string()),
            files.end());
}

}  // namespace when_page_test
}  // namespace hearth::report
