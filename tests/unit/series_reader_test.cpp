// The MMV series reader (formats/series_tsv.h): strict parsing with PATH:LINE errors, escapes,
// declarations between rows, replaced series; and the round trip: what collectors/mmv's
// SeriesTsvWriter writes is read back field for field (a test may include both sides).
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "collectors/mmv/mmv_watch.h"
#include "collectors/mmv/series_output.h"
#include "formats/series_tsv.h"

#ifdef HEARTH_HAVE_PCP_MMV
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on
#include "tests/unit/mmv_pcp_support.h"
#endif

namespace hearth::series {
namespace {

const char* kHeader =
    "# hearth mmv.series 1\n# interval_ns\t1000000000\n# clock\trelative\n"
    "time_ns\tseries\tmetric\tinstance\tvalue\n";

Result<SeriesFile> parse(const std::string& body) {
  return parse_series_tsv(std::string(kHeader) + body, "x.tsv");
}

std::string error_of(const std::string& text) {
  Result<SeriesFile> f = parse_series_tsv(text, "x.tsv");
  return f ? std::string("(parsed)") : f.error().message;
}

TEST(SeriesReader, DeclarationsRowsEventsAndEscapes) {
  Result<SeriesFile> f = parse(
      "# series\t1\tapp\tversion=3\tflags=process\tpath=/tmp/a\\tb\n"
      "# metric\t1\treq\tu64\tcounter\tcount\t7\tRequests\\\\served\n"
      "# metric\t1\tname\tstring\tinstant\t\t\t\n"
      "# label\t1\titem=1\t{\"kind\":7}\n"
      "0\t1\treq\tGET\t18446744073709551615\n"
      "0\t1\tname\t\ta\\tb\\nc\\x01\n"
      "# something newer\tignored\n"
      "\n"
      "# event\t1000\t1\treplaced\tnew file\n"
      "# series\t2\tapp\tversion=3\tflags=none\n"
      "# metric\t2\treq\tu64\tcounter\tcount\t7\tRequests\n"
      "2000\t2\treq\tGET\t3\r\n"
      "# event\t3000\t\terror\tjunk: bad magic\n");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->interval_ns, 1000000000u);
  EXPECT_EQ(f->clock, "relative");
  ASSERT_EQ(f->series.size(), 2u);
  EXPECT_EQ(f->series[0].attrs.back().second, "/tmp/a\tb");
  ASSERT_EQ(f->metrics.size(), 3u);
  EXPECT_EQ(f->metrics[0].help, "Requests\\served");
  EXPECT_EQ(f->metrics[0].indom, "7");
  EXPECT_EQ(f->metrics[2].series, 2u);
  ASSERT_EQ(f->labels.size(), 1u);
  EXPECT_EQ(f->labels[0].json, "{\"kind\":7}");
  ASSERT_EQ(f->points.size(), 3u);
  EXPECT_EQ(f->points[0].exact, UINT64_MAX);
  EXPECT_EQ(f->instances[f->points[0].instance], "GET");
  EXPECT_TRUE(std::isnan(f->points[1].value));
  EXPECT_EQ(f->strings[f->points[1].exact], "a\tb\nc\x01");
  EXPECT_EQ(f->points[2].metric, 2u);  // the replaced series' own metric
  ASSERT_EQ(f->events.size(), 2u);
  EXPECT_EQ(f->events[0].kind, "replaced");
  EXPECT_EQ(f->events[1].series, 0u);
  EXPECT_EQ(f->events[1].detail, "junk: bad magic");
}

TEST(SeriesReader, NumbersAreCheckedAgainstTheirType) {
  std::string decl =
      "# series\t1\ta\n# metric\t1\ti\ti32\tinstant\t\t\t\n# metric\t1\tu\tu32\tinstant\t\t\t\n"
      "# metric\t1\td\tdouble\tinstant\t\t\t\n# metric\t1\te\telapsed\tcounter\tmicrosec\t\t\n";
  Result<SeriesFile> ok = parse(decl +
                                "0\t1\ti\t\t-2147483648\n0\t1\tu\t\t4294967295\n"
                                "0\t1\td\t\t-1.5e-3\n0\t1\td\t\tnan\n0\t1\te\t\t-7\n");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->points[0].value, -2147483648.0);
  EXPECT_EQ(static_cast<int64_t>(ok->points[4].exact), -7);
  for (const char* bad : {"0\t1\ti\t\t2147483648\n", "0\t1\tu\t\t-1\n", "0\t1\tu\t\t4294967296\n",
                          "0\t1\td\t\t1.5x\n", "0\t1\td\t\t\n", "0\t1\ti\t\t+1\n",
                          "0\t1\te\t\t99999999999999999999\n"}) {
    Result<SeriesFile> f = parse(decl + bad);
    ASSERT_FALSE(f) << bad;
    EXPECT_TRUE(f.error().message.starts_with("x.tsv:10: ")) << f.error().message;
  }
}

TEST(SeriesReader, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of("# hearth sched.states 1\n"),
            "x.tsv:1: not an MMV series file: expected `# hearth mmv.series 1` first, found "
            "`# hearth sched.states 1`");
  EXPECT_EQ(error_of("# hearth mmv.series 2\n"),
            "x.tsv:1: mmv.series version 2 is not supported (this hearth reads version 1)");
  EXPECT_EQ(error_of("# hearth mmv.series 1\ntime_ns\tseries\tmetric\tinstance\tvalue\n"),
            "x.tsv:2: the header lacks `# interval_ns` or `# clock` before the column names");
  EXPECT_EQ(error_of("# hearth mmv.series 1\n# clock\tx\n"),
            "x.tsv:3: the file ends before the column names line");
  std::string h = kHeader;
  EXPECT_EQ(error_of(h + "0\t1\tm\t\t1\n"), "x.tsv:5: series 1 is used before its `# series` line");
  EXPECT_EQ(error_of(h + "# series\t1\ta\n0\t1\tm\t\t1\n"),
            "x.tsv:6: metric `m` of series 1 has no `# metric` line before it");
  EXPECT_EQ(error_of(h + "# series\t1\ta\n# series\t1\tb\n"),
            "x.tsv:6: series 1 is declared twice");
  EXPECT_EQ(error_of(h + "# series\t1\ta\n# metric\t1\tm\tu64\tgauge\t\t\t\n"),
            "x.tsv:6: unknown semantics `gauge` (counter instant discrete)");
  EXPECT_EQ(error_of(h + "# series\t1\ta\n# metric\t1\tm\\q\tu64\tcounter\t\t\t\n"),
            "x.tsv:6: metric name `m\\q` has a bad escape");
  EXPECT_EQ(error_of(h + "# series\t1\ta\n# metric\t1\tm\tu64\tcounter\t\t\t\n0\t1\tm\t\n"),
            "x.tsv:7: a row needs 5 tab-separated fields (time_ns series metric instance value), "
            "not 4");
  EXPECT_EQ(error_of(h + "# event\t1\t9\tgone\t\n"),
            "x.tsv:5: series 9 is used before its `# series` line");
  // Unprintable bytes are never quoted.
  std::string msg = error_of(std::string("\x01\x1b[31m\xff", 6));
  for (char c : msg) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << msg;
}

TEST(SeriesReader, UnescapeRejectsBadSequences) {
  EXPECT_EQ(unescape_field("a\\\\b\\x41\\r"), std::optional<std::string>("a\\bA\r"));
  for (const char* bad : {"\\", "a\\q", "\\x4", "\\xg0", "\\x"}) {
    EXPECT_FALSE(unescape_field(bad)) << bad;
  }
}

// Records what the watcher reports, and writes it through the real SeriesTsvWriter.
struct Tee : mmv::SeriesSink {
  mmv::SeriesTsvWriter writer;
  std::vector<std::string> rows;     // time series metric instance value (unescaped)
  std::vector<std::string> metrics;  // series name type semantics units indom help
  std::vector<std::string> events;   // kind series
  size_t labels = 0;
  explicit Tee(std::string* out)
      : writer({1000000, false}, [out](std::string_view s) { out->append(s); }) {}
  void on_series(const mmv::Series& s) override {
    writer.on_series(s);
    for (const mmv::Metric& m : s.file.layout().metrics) {
      metrics.push_back(std::to_string(s.id) + "|" + m.name + "|" + mmv::type_name(m.type) + "|" +
                        mmv::semantics_name(m.semantics) + "|" + mmv::units_text(m.units) + "|" +
                        m.short_help);
    }
    labels += s.file.layout().labels.size();
  }
  void on_values(const mmv::Series& s, const mmv::Snapshot& snap) override {
    writer.on_values(s, snap);
    const mmv::Layout& L = s.file.layout();
    for (size_t i = 0; i < L.slots.size(); ++i) {
      if (!snap.samples[i].present) continue;
      const mmv::Slot& slot = L.slots[i];
      const mmv::Metric& m = L.metrics[slot.metric];
      rows.push_back(std::to_string(snap.time_ns) + "|" + std::to_string(s.id) + "|" + m.name +
                     "|" + (slot.instance >= 0 ? L.instances[slot.instance].name : "") + "|" +
                     mmv::format_value(m, snap.samples[i]));
    }
  }
  void on_event(uint64_t t, const mmv::Series* s, const std::string& path, mmv::EventKind k,
                std::string_view detail) override {
    writer.on_event(t, s, path, k, detail);
    events.push_back(std::string(mmv::event_name(k)) + "|" + (s ? std::to_string(s->id) : ""));
  }
};

// The parsed file in Tee's terms, values formatted back as the writer formats them.
void expect_same(const Tee& tee, const SeriesFile& f) {
  std::vector<std::string> metrics, rows, events;
  for (const MetricInfo& m : f.metrics) {
    metrics.push_back(std::to_string(m.series) + "|" + m.name + "|" + type_name(m.type) + "|" +
                      semantics_name(m.semantics) + "|" + m.units + "|" + m.help);
  }
  for (const Point& p : f.points) {
    const MetricInfo& m = f.metrics[p.metric];
    std::string v;
    char buf[64];
    switch (m.type) {
      case ValueType::kString:
        v = f.strings[p.exact];
        break;
      case ValueType::kFloat:
        v.assign(buf, std::to_chars(buf, buf + 64, static_cast<float>(p.value)).ptr);
        break;
      case ValueType::kDouble:
        v.assign(buf, std::to_chars(buf, buf + 64, p.value).ptr);
        break;
      case ValueType::kU32:
      case ValueType::kU64:
        v = std::to_string(p.exact);
        break;
      default:
        v = std::to_string(static_cast<int64_t>(p.exact));
    }
    rows.push_back(std::to_string(p.time_ns) + "|" + std::to_string(m.series) + "|" + m.name + "|" +
                   f.instances[p.instance] + "|" + v);
  }
  for (const EventInfo& e : f.events) {
    events.push_back(e.kind + "|" + (e.series ? std::to_string(e.series) : ""));
  }
  EXPECT_EQ(metrics, tee.metrics);
  EXPECT_EQ(rows, tee.rows);
  EXPECT_EQ(events, tee.events);
  EXPECT_EQ(f.labels.size(), tee.labels);
}

TEST(SeriesRoundTrip, WriterOutputOfTheGoldenMmvFilesReadsBack) {
  std::string text;
  Tee tee(&text);
  mmv::Watcher w({{std::string(HEARTH_SOURCE_DIR) + "/tests/golden/inputs/mmv", true}});
  w.poll(tee);
  w.poll(tee);
  ASSERT_GT(tee.rows.size(), 10u);
  ASSERT_GT(tee.labels, 0u);
  Result<SeriesFile> f = parse_series_tsv(text, "rt.tsv");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->interval_ns, 1000000u);
  EXPECT_EQ(f->clock, "realtime");
  expect_same(tee, *f);
}

#ifdef HEARTH_HAVE_PCP_MMV
TEST(SeriesRoundTrip, EscapedStringsInstancesAndAReplacedFile) {
  static mmv_instances_t disks[] = {{0, "sda"}, {1, "nvme0n1"}};
  static mmv_indom_t indoms[] = {{3, 2, disks, nullptr, nullptr}};
  static mmv_metric_t metrics[] = {
      {"io", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(1, 0, 0, PM_SPACE_KBYTE, 0, 0), 3,
       const_cast<char*>("bytes\tmoved"), nullptr},
      {"s", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"f", 3, MMV_TYPE_FLOAT, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
  };
  std::string path = mmv::testing::mmv_path("roundtrip");
  auto init = [&] {
    void* m =
        mmv_stats_init("roundtrip", 0, static_cast<mmv_stats_flags_t>(0), metrics, 3, indoms, 1);
    mmv_lookup_value_desc(m, "io", "nvme0n1")->ull = 123456789;
    mmv_stats_set_string(m, "s", nullptr, "tab\there\\back\nline\x01");
    mmv_set_value(m, mmv_lookup_value_desc(m, "f", nullptr), 0.1);
    return m;
  };
  void* m = init();
  ASSERT_NE(m, nullptr);
  std::string text;
  Tee tee(&text);
  mmv::Watcher w({{path, false}});
  w.poll(tee);
  mmv_stats_stop("roundtrip", m);
  m = init();
  w.poll(tee);
  w.poll(tee);
  mmv_stats_stop("roundtrip", m);
  Result<SeriesFile> f = parse_series_tsv(text, "rt.tsv");
  ASSERT_TRUE(f) << f.error().message << "\n" << text;
  ASSERT_EQ(f->series.size(), 2u);
  ASSERT_FALSE(f->events.empty());
  EXPECT_EQ(f->events[0].kind, "replaced");
  EXPECT_EQ(f->metrics[0].help, "bytes\tmoved");
  bool saw_string = false;
  for (const Point& p : f->points) {
    if (f->metrics[p.metric].name == "s") {
      EXPECT_EQ(f->strings[p.exact], "tab\there\\back\nline\x01");
      saw_string = true;
    }
  }
  EXPECT_TRUE(saw_string);
  expect_same(tee, *f);
}
#endif

}  // namespace
}  // namespace hearth::series
