// The MMV series format's own round trip (formats/series_tsv.h): what its writer writes, byte
// for byte as the README shows it, its reader reads back field for field, escapes included.
// (series_reader_test checks the reader alone and the whole path from an MMV file.)
#include <gtest/gtest.h>

#include "formats/series_tsv.h"

namespace hearth::series {
namespace {

std::string written() {
  std::string out;
  append_header(&out, 1000000000, "realtime");
  append_series(&out, {1, "app", {{"version", "3"}, {"flags", "process"}, {"path", "/t/a\tb"}}});
  append_metric(&out, {1, "app.requests", ValueType::kU64, Semantics::kCounter, "count", "7",
                       "Requests\\served"});
  append_metric(&out, {1, "app.state", ValueType::kString, Semantics::kDiscrete, "", "", ""});
  append_label(&out, {1, "item=1", "{\"kind\":7}"});
  append_row(&out, 1700000000123456789, 1, "app.requests", "GET", "1234");
  append_row(&out, 1700000000123456789, 1, "app.state", "", "up\nand\x01running");
  append_event(&out, {1700000001000000000, 1, "replaced", "new file or generation: new series"});
  append_event(&out, {1700000002000000000, 0, "error", "b.mmv: truncated"});
  return out;
}

TEST(SeriesTsv, WriterBytes) {
  EXPECT_EQ(written(),
            "# hearth mmv.series 1\n"
            "# interval_ns\t1000000000\n"
            "# clock\trealtime\n"
            "time_ns\tseries\tmetric\tinstance\tvalue\n"
            "# series\t1\tapp\tversion=3\tflags=process\tpath=/t/a\\tb\n"
            "# metric\t1\tapp.requests\tu64\tcounter\tcount\t7\tRequests\\\\served\n"
            "# metric\t1\tapp.state\tstring\tdiscrete\t\t\t\n"
            "# label\t1\titem=1\t{\"kind\":7}\n"
            "1700000000123456789\t1\tapp.requests\tGET\t1234\n"
            "1700000000123456789\t1\tapp.state\t\tup\\nand\\x01running\n"
            "# event\t1700000001000000000\t1\treplaced\tnew file or generation: new series\n"
            "# event\t1700000002000000000\t\terror\tb.mmv: truncated\n");
}

TEST(SeriesTsv, RoundTrip) {
  Result<SeriesFile> f = parse_series_tsv(written(), "rt.tsv");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->version, kSeriesFormatVersion);
  EXPECT_EQ(f->interval_ns, 1000000000u);
  EXPECT_EQ(f->clock, "realtime");
  ASSERT_EQ(f->series.size(), 1u);
  EXPECT_EQ(f->series[0].id, 1u);
  EXPECT_EQ(f->series[0].name, "app");
  using Attrs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(f->series[0].attrs,
            (Attrs{{"version", "3"}, {"flags", "process"}, {"path", "/t/a\tb"}}));
  ASSERT_EQ(f->metrics.size(), 2u);
  const MetricInfo& m = f->metrics[0];
  EXPECT_EQ(m.series, 1u);
  EXPECT_EQ(m.name, "app.requests");
  EXPECT_EQ(m.type, ValueType::kU64);
  EXPECT_EQ(m.semantics, Semantics::kCounter);
  EXPECT_EQ(m.units, "count");
  EXPECT_EQ(m.indom, "7");
  EXPECT_EQ(m.help, "Requests\\served");
  EXPECT_EQ(f->metrics[1].type, ValueType::kString);
  ASSERT_EQ(f->labels.size(), 1u);
  EXPECT_EQ(f->labels[0].target, "item=1");
  EXPECT_EQ(f->labels[0].json, "{\"kind\":7}");
  ASSERT_EQ(f->points.size(), 2u);
  EXPECT_EQ(f->points[0].time_ns, 1700000000123456789u);
  EXPECT_EQ(f->points[0].metric, 0u);
  EXPECT_EQ(f->instances[f->points[0].instance], "GET");
  EXPECT_EQ(f->points[0].exact, 1234u);
  EXPECT_EQ(f->points[0].value, 1234.0);
  EXPECT_EQ(f->points[1].instance, 0u);  // no instance
  EXPECT_EQ(f->strings[f->points[1].exact], "up\nand\x01running");
  ASSERT_EQ(f->events.size(), 2u);
  EXPECT_EQ(f->events[0].time_ns, 1700000001000000000u);
  EXPECT_EQ(f->events[0].series, 1u);
  EXPECT_EQ(f->events[0].kind, "replaced");
  EXPECT_EQ(f->events[0].detail, "new file or generation: new series");
  EXPECT_EQ(f->events[1].series, 0u);  // about a file no series was opened for
  EXPECT_EQ(f->events[1].detail, "b.mmv: truncated");
}

TEST(SeriesTsv, EveryByteSurvivesEscaping) {
  std::string all;
  for (int c = 1; c < 256; ++c) all += static_cast<char>(c);
  std::string escaped = escape_field(all);
  EXPECT_EQ(escaped.find('\t'), std::string::npos);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  EXPECT_EQ(unescape_field(escaped), std::optional<std::string>(all));
}

}  // namespace
}  // namespace hearth::series
