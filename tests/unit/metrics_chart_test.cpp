// The metrics chart (render/charts): counters as rates, resets and new series break lines
// (no negative spikes), SENTINEL gaps break lines, strings as change markers, instance colours
// shared across panels, --metrics and the panel cap, unit formatting, and the scene's lines.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "formats/series_tsv.h"
#include "render/cairo/cairo_writer.h"
#include "render/charts/metric_panels.h"
#include "render/charts/metrics_chart.h"
#include "render/charts/value_units.h"
#include "render/svg/svg_writer.h"

namespace hearth::charts {
namespace {

constexpr uint64_t kS = 1000000000;

series::SeriesFile parse(const std::string& body) {
  Result<series::SeriesFile> f = series::parse_series_tsv(
      "# hearth mmv.series 1\n# interval_ns\t1000000000\n# clock\trelative\n"
      "time_ns\tseries\tmetric\tinstance\tvalue\n" +
          body,
      "t.tsv");
  EXPECT_TRUE(f) << f.error().message;
  return f ? *f : series::SeriesFile{};
}

std::string row(uint64_t t, int series, const char* metric, const char* inst,
                const std::string& v) {
  return std::to_string(t) + "\t" + std::to_string(series) + "\t" + metric + "\t" + inst + "\t" +
         v + "\n";
}

const Panel* find(const PanelSet& set, const std::string& title) {
  for (const Panel& p : set.panels) {
    if (p.title == title) return &p;
  }
  return nullptr;
}

TEST(MetricPanels, CountersAreRatesAndResetsAndNewSeriesBreakTheLine) {
  std::string t = "# series\t1\tapp\n# metric\t1\treq\tu64\tcounter\tcount\t1\tRequests\n";
  // GET: +10 per second, reset at 3 s (value goes down), then +5 per second.
  const int get[] = {100, 110, 120, 2, 7, 12};
  for (int i = 0; i < 6; ++i) t += row(i * kS, 1, "req", "GET", std::to_string(get[i]));
  t += "# event\t" + std::to_string(6 * kS) + "\t1\treplaced\tnew series\n";
  t += "# series\t2\tapp\n# metric\t2\treq\tu64\tcounter\tcount\t1\tRequests\n";
  for (int i = 6; i < 9; ++i) t += row(i * kS, 2, "req", "GET", std::to_string(i * 2));
  PanelSet set = build_panels({parse(t)}, {});
  ASSERT_EQ(set.panels.size(), 1u);
  const Panel& p = set.panels[0];
  EXPECT_TRUE(p.rate);
  EXPECT_EQ(p.pcp_units, "count / sec");
  ASSERT_EQ(p.lines.size(), 1u);
  const PanelLine& l = p.lines[0];
  EXPECT_EQ(l.resets, 1u);
  ASSERT_EQ(l.runs.size(), 3u);  // before the reset, after it, the new series
  ASSERT_EQ(l.runs[0].size(), 2u);
  EXPECT_DOUBLE_EQ(l.runs[0][0].t_ns, 1.0 * kS);
  EXPECT_DOUBLE_EQ(l.runs[0][0].v, 10);
  ASSERT_EQ(l.runs[1].size(), 2u);
  EXPECT_DOUBLE_EQ(l.runs[1][0].v, 5);
  ASSERT_EQ(l.runs[2].size(), 2u);  // 6 s is the new series' base: rates from 7 s
  EXPECT_DOUBLE_EQ(l.runs[2][0].t_ns, 7.0 * kS);
  EXPECT_DOUBLE_EQ(l.runs[2][0].v, 2);
  EXPECT_GE(p.min, 0);  // no negative spike anywhere
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.events[0].kind, "replaced");
  EXPECT_DOUBLE_EQ(p.events[0].t_ns, 6.0 * kS);
}

TEST(MetricPanels, SentinelGapsBreakLinesAndUnitsScale) {
  std::string t =
      "# series\t1\tapp\n# metric\t1\tlat\tdouble\tinstant\tmillisec\t\tLatency\n"
      "# metric\t1\tq\tu32\tdiscrete\tcount\t\t\n";
  for (int i = 0; i < 6; ++i) {
    if (i != 2) t += row(i * kS, 1, "lat", "", std::to_string(i + 1));  // no value at 2 s
    t += row(i * kS, 1, "q", "", "1");
  }
  t += row(9 * kS, 1, "lat", "", "1");  // after 3 snapshots never taken: also a gap
  PanelSet set = build_panels({parse(t)}, {});
  const Panel* lat = find(set, "lat");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->kind, PanelKind::kLines);
  ASSERT_EQ(lat->lines.size(), 1u);
  ASSERT_EQ(lat->lines[0].runs.size(), 3u);
  EXPECT_EQ(lat->lines[0].runs[0].size(), 2u);
  EXPECT_EQ(lat->lines[0].runs[1].size(), 3u);
  EXPECT_DOUBLE_EQ(lat->lines[0].runs[0][1].v, 0.002);  // 2 ms, in seconds
  EXPECT_EQ(find(set, "q")->kind, PanelKind::kSteps);
  EXPECT_EQ(find(set, "q")->lines[0].runs.size(), 1u);
}

TEST(MetricPanels, StringsAreChangeMarkersAndInstancesKeepTheirColour) {
  std::string t =
      "# series\t1\tapp\n# metric\t1\tstate\tstring\tinstant\t\t\t\n"
      "# metric\t1\ta\ti64\tinstant\t\t1\t\n# metric\t1\tb\ti64\tinstant\t\t1\t\n";
  const char* states[] = {"up", "up", "busy\\tnow", "busy\\tnow", "up"};
  for (int i = 0; i < 5; ++i) {
    t += row(i * kS, 1, "state", "", states[i]);
    t += row(i * kS, 1, "a", "zeta", "1") + row(i * kS, 1, "a", "alpha", "2");
    t += row(i * kS, 1, "b", "zeta", "3");
  }
  PanelSet set = build_panels({parse(t)}, {});
  const Panel* s = find(set, "state");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->kind, PanelKind::kStrings);
  ASSERT_EQ(s->changes.size(), 3u);
  EXPECT_EQ(s->changes[1].value, "busy\tnow");
  EXPECT_DOUBLE_EQ(s->changes[1].t_ns, 2.0 * kS);
  EXPECT_DOUBLE_EQ(s->changes[2].t_ns, 4.0 * kS);
  const Panel* a = find(set, "a");
  const Panel* b = find(set, "b");
  ASSERT_EQ(a->lines.size(), 2u);
  EXPECT_EQ(a->lines[0].instance, "alpha");  // legend by name
  ASSERT_EQ(b->lines.size(), 1u);
  EXPECT_EQ(b->lines[0].color, a->lines[1].color);  // zeta: one colour in both panels
  EXPECT_NE(a->lines[0].color, a->lines[1].color);
}

TEST(MetricPanels, MetricsFilterAndCap) {
  std::string t = "# series\t1\tapp\n";
  for (int i = 0; i < 10; ++i) {
    std::string name = (i % 2 ? "net.m" : "cpu.m") + std::to_string(i);
    t += "# metric\t1\t" + name + "\tu64\tinstant\t\t\t\n";
    t += row(0, 1, name.c_str(), "", "1");
  }
  PanelOptions o;
  o.metrics = *Pattern::compile("^net\\.");
  o.max_panels = 3;
  PanelSet set = build_panels({parse(t)}, o);
  EXPECT_EQ(set.metrics, 5u);
  EXPECT_EQ(set.filtered_out, 5u);
  ASSERT_EQ(set.panels.size(), 3u);
  EXPECT_EQ(set.panels[0].title, "net.m1");
  scene::Scene s = layout_metrics({parse(t)}, {"", 1200, o}, nullptr);
  bool note = false;
  for (const scene::Text& x : s.texts)
    note = note || x.text.starts_with("showing the first 3 of 5");
  EXPECT_TRUE(note);
}

TEST(ValueUnits, PcpUnitsScaleAndFormat) {
  ValueUnit kb = parse_pcp_units("Kbyte");
  EXPECT_EQ(kb.base, BaseUnit::kBytes);
  EXPECT_EQ(kb.factor, 1024);
  EXPECT_EQ(format_value(1.5 * 1024 * 1024, rate_unit(kb)), "1.5 MiB/s");
  EXPECT_EQ(format_value(0.25, parse_pcp_units("millisec")), "250 ms");
  EXPECT_EQ(format_value(0.4, rate_unit(parse_pcp_units("microsec"))), "40%");
  ValueUnit k3 = parse_pcp_units("count x 10^3");
  EXPECT_EQ(k3.factor, 1000);
  EXPECT_EQ(format_value(12000, rate_unit(k3)), "12k/s");
  EXPECT_EQ(format_value(2.5e6, parse_pcp_units("Mbyte / sec")), "2.38 MiB/s");
  EXPECT_EQ(parse_pcp_units("Mbyte / sec").factor, 1024.0 * 1024);
  EXPECT_EQ(format_value(3, parse_pcp_units("widget")), "3 widget");
  EXPECT_EQ(format_value(0, parse_pcp_units("")), "0");
  std::vector<double> ticks = value_ticks(0, 1.3 * 1024 * 1024, kb, 5);
  EXPECT_EQ(ticks.front(), 0);
  EXPECT_GE(ticks.back(), 1.3 * 1024 * 1024);
  EXPECT_EQ(ticks[1], 512 * 1024);  // binary steps for bytes
  EXPECT_EQ(value_ticks(-3, 7, {}, 5), (std::vector<double>{-4, -2, 0, 2, 4, 6, 8}));
}

TEST(MetricsChart, SceneHasLinesTooltipsAndBothBackendsDrawIt) {
  std::string t = "# series\t1\tapp\n# metric\t1\treq\tu64\tcounter\tcount\t1\tRequests served\n";
  for (int i = 0; i < 4; ++i) t += row(i * kS, 1, "req", "GET", std::to_string(i * 10));
  MetricsStats st;
  scene::Scene s = layout_metrics({parse(t)}, {}, &st);
  EXPECT_EQ(st.panels, 1u);
  EXPECT_EQ(st.lines, 1u);
  EXPECT_EQ(s.kind, "chart time_link metrics");  // time_link.js before metrics.js, which uses it
  size_t polylines = 0, hover = 0;
  bool help = false;
  for (const scene::Layer& l : s.layers) {
    polylines += l.lines.size();
    for (const scene::Rect& r : l.rects) {
      hover += r.hover_only && r.title.find("req at 2.00 s: GET 10/s") != std::string::npos;
      help = help || (r.hover_only && r.title.starts_with("req: Requests served (counter"));
    }
    for (const scene::Polyline& p : l.lines) {
      EXPECT_EQ(p.points.size(), 3u);
      for (auto [x, y] : p.points) EXPECT_TRUE(x >= 0 && x <= s.width && y >= 0 && y <= s.height);
    }
  }
  EXPECT_EQ(polylines, 1u);
  EXPECT_EQ(hover, 1u);
  EXPECT_TRUE(help);
  std::string svg = svg::to_svg(s);
  EXPECT_NE(svg.find("<polyline points=\""), std::string::npos);
  EXPECT_NE(svg.find("fill-opacity=\"0\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"hearth chart time_link metrics\""), std::string::npos);
  Result<std::string> png = cairo_backend::render_png(s);
  ASSERT_TRUE(png) << png.error().message;
  EXPECT_TRUE(png->starts_with("\x89PNG"));
}

}  // namespace
}  // namespace hearth::charts
