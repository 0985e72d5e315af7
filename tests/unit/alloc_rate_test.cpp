// The allocation rate's series (recording/alloc_rate.h): points every interval, read back by the
// series reader as two counters on CLOCK_REALTIME; the report draws them (alloc.rate.svg) and
// the time view puts the chart on its axis.
#include "recording/alloc_rate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/series_tsv.h"
#include "render/report/report.h"
#include "render/report/when_page.h"
#include "tests/unit/temp_dir.h"

namespace hearth::recording {
namespace alloc_rate_test {

namespace fs = std::filesystem;

constexpr uint64_t kT0 = 1'795'762'269'000'000'000u;  // CLOCK_REALTIME ns
constexpr uint64_t kMs = 1'000'000u;

TEST(AllocRate, APointIsDueEveryInterval) {
  AllocRate r(100 * kMs);
  EXPECT_TRUE(r.due(kT0));  // the first, at the attach
  r.add({kT0, 0, 0});
  EXPECT_FALSE(r.due(kT0 + 99 * kMs));
  EXPECT_TRUE(r.due(kT0 + 100 * kMs));
  // A wall clock stepped back: the point is not taken (time never runs backwards in the chart).
  r.add({kT0 - kMs, 5, 5});
  EXPECT_EQ(r.points().size(), 1u);
}

TEST(AllocRate, TheSeriesIsTwoCountersTheReaderTakes) {
  AllocRate r(100 * kMs);
  EXPECT_EQ(r.series_text(7, "/lib/libc.so.6"), "");  // one point: no rate
  r.add({kT0, 0, 0});
  r.add({kT0 + 100 * kMs, 1000, 64000});
  r.add({kT0 + 150 * kMs, 1500, 96000});  // the window's end, between two intervals
  const std::string text = r.series_text(7, "/lib/libc.so.6");
  auto f = series::parse_series_tsv(text, "alloc.rate.tsv");
  ASSERT_TRUE(f.has_value()) << f.error().message << "\n" << text;
  EXPECT_EQ(f->clock, "realtime");
  EXPECT_EQ(f->interval_ns, 100 * kMs);
  ASSERT_EQ(f->series.size(), 1u);
  EXPECT_EQ(f->series[0].name, "alloc");
  EXPECT_EQ(f->series[0].attrs,
            (std::vector<std::pair<std::string, std::string>>{{"pid", "7"},
                                                              {"allocator", "/lib/libc.so.6"}}));
  ASSERT_EQ(f->metrics.size(), 2u);
  EXPECT_EQ(f->metrics[0].name, "alloc.calls");
  EXPECT_EQ(f->metrics[0].units, "count");
  EXPECT_EQ(f->metrics[1].name, "alloc.bytes");
  EXPECT_EQ(f->metrics[1].units, "byte");
  for (const series::MetricInfo& m : f->metrics) {
    EXPECT_EQ(m.semantics, series::Semantics::kCounter) << m.name;
    EXPECT_EQ(m.type, series::ValueType::kU64) << m.name;
  }
  ASSERT_EQ(f->points.size(), 6u);
  EXPECT_EQ(f->points[4].time_ns, kT0 + 150 * kMs);
  EXPECT_EQ(f->points[4].exact, 1500u);  // alloc.calls
  EXPECT_EQ(f->points[5].exact, 96000u);  // alloc.bytes
}

// A report directory with stack samples (the heatmap's) and an allocation rate on CLOCK_REALTIME:
// the memory section shows the chart, and the time view links it.
TEST(AllocRate, TheReportDrawsItOnTheTimeAxis) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const fs::path inputs = fs::path(HEARTH_SOURCE_DIR) / "tests/golden/inputs";
  for (const auto& e : fs::directory_iterator(inputs / "timeline")) {
    fs::copy(e.path(), fs::path(dir.path()) / e.path().filename());
  }
  AllocRate r(100 * kMs);
  for (uint64_t i = 0; i <= 20; ++i) r.add({kT0 + 100 * kMs * (i + 1), i * 100, i * 6400});
  std::ofstream(fs::path(dir.path()) / report::kAllocRateSeries) << r.series_text(7, "libc");
  auto out = report::render_report({.dir = dir.path()});
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_TRUE(out->problems.empty()) << out->problems.front();
  const auto& pics = out->pictures;
  EXPECT_NE(std::find(pics.begin(), pics.end(), report::kAllocRateSvg), pics.end());
  std::stringstream index, when, svg;
  index << std::ifstream(fs::path(dir.path()) / "index.html").rdbuf();
  when << std::ifstream(fs::path(dir.path()) / "when.html").rdbuf();
  svg << std::ifstream(fs::path(dir.path()) / report::kAllocRateSvg).rdbuf();
  EXPECT_NE(index.str().find("data=\"alloc.rate.svg\""), std::string::npos);
  EXPECT_NE(when.str().find(
                "\"src\":\"alloc.rate.svg\",\"title\":\"Allocation rate\",\"linked\":true"),
            std::string::npos)
      << when.str().substr(0, 3000);
  EXPECT_NE(svg.str().find("Allocation rate: "), std::string::npos);
  EXPECT_NE(svg.str().find("byte / sec"), std::string::npos);
  EXPECT_NE(svg.str().find("data-clock=\"realtime\""), std::string::npos);
}

TEST(AllocRate, AWallClocklessRateIsShownButNotLinked) {
  report::WhenOptions o = report::when_options({.heat = true,
                                                .timeline = true,
                                                .alloc_rate = true,
                                                .alloc_rate_clock = "realtime",
                                                .samples_real_ns = 0,
                                                .samples_mono_ns = 1},
                                               "app");
  ASSERT_EQ(o.pictures.size(), 3u);
  EXPECT_EQ(o.pictures[1].name, "alloc");
  EXPECT_FALSE(o.pictures[1].linked);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("allocation-rate chart is not on this time axis"), std::string::npos);
  // The rate alone links the heatmap: a page.
  o = report::when_options({.heat = true,
                            .alloc_rate = true,
                            .alloc_rate_clock = "realtime",
                            .samples_real_ns = 5},
                           "app");
  ASSERT_EQ(o.pictures.size(), 2u);
  EXPECT_TRUE(o.pictures[0].linked);
  EXPECT_NE(o.info.find("allocation rate's CLOCK_REALTIME"), std::string::npos) << o.info;
}

}  // namespace alloc_rate_test
}  // namespace hearth::recording
