// render/timeline: the lane model (intervals -> lanes in order, names, pools grouped, slots,
// sample ticks on the scheduler's clock, the thread filter), column times (intervals split
// across columns, slots spread evenly), lookups, the static picture's rows, the page data's
// interval encoding decoded back, and the inputs (a directory, files by kind, damage kept).
#include "render/timeline/lanes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "render/page/page_text.h"
#include "render/timeline/time_text.h"
#include "render/timeline/timeline_data.h"
#include "render/timeline/timeline_inputs.h"
#include "render/timeline/timeline_picture.h"
#include "tests/unit/temp_dir.h"

namespace hearth::timeline {
namespace timeline_lanes_test {

using page::append_base64;
using page::append_json_string;
using sched_intervals::Interval;
using sched_intervals::IntervalsFile;
using sched_intervals::Slot;

constexpr uint64_t kT0 = 10'000'000'000;  // the window's start, CLOCK_MONOTONIC
constexpr uint64_t kMs = 1'000'000;

// A file with the window [kT0, kT0 + 1 s), intervals whole from WHOLE_FROM, 100 ms slots.
std::string intervals_text(const std::vector<Interval>& rows, uint64_t whole_from = kT0) {
  sched_tsv::SchedHeader h;
  h.targets = {{100, "app"}};
  h.window_start_ns = kT0;
  h.window_end_ns = kT0 + 1000 * kMs;
  sched_intervals::Kept kept{whole_from, 100 * kMs};
  std::string out = sched_intervals::format_header(sched_intervals::FileKind::kIntervals, h, kept);
  for (const Interval& r : rows) sched_intervals::append_interval(&out, r);
  sched_intervals::append_end(&out, rows.size());
  return out;
}

std::string slots_text(const std::vector<Slot>& rows, uint64_t whole_from) {
  sched_tsv::SchedHeader h;
  h.window_start_ns = kT0;
  h.window_end_ns = kT0 + 1000 * kMs;
  sched_intervals::Kept kept{whole_from, 100 * kMs};
  std::string out = sched_intervals::format_header(sched_intervals::FileKind::kSlots, h, kept);
  for (const Slot& r : rows) sched_intervals::append_slot(&out, r);
  sched_intervals::append_end(&out, rows.size());
  return out;
}

IntervalsFile parsed(const std::string& text) {
  auto f = sched_intervals::parse_intervals(text, "test.tsv");
  EXPECT_TRUE(f.has_value()) << (f ? "" : f.error().message);
  return f ? std::move(*f) : IntervalsFile{};
}

Interval iv(int64_t tid, uint64_t a_ms, uint64_t b_ms, char state, int cpu = 0, int64_t by = -1) {
  return {tid, 100, kT0 + a_ms * kMs, kT0 + b_ms * kMs, state, cpu, by};
}

// app (main) 100, worker-1 101, worker-2 102, pool-3 103, a thread 999 no file names.
std::vector<Interval> four_threads() {
  return {iv(100, 0, 500, 'C'),          iv(100, 500, 1000, 'S', 0, 101), iv(101, 0, 1000, 'S'),
          iv(102, 0, 1000, 'R', 1, 100), iv(103, 200, 1000, 'D'),         iv(999, 0, 1000, 'S')};
}

Names four_names() {
  Names n;
  n.threads = {{100, "app"}, {101, "worker-1"}, {102, "worker-2"}, {103, "pool-3"}};
  n.processes = {{100, "app"}};
  return n;
}

TEST(TimelineLanes, OrderNamesAndPools) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  Model m = build_model(f, nullptr, nullptr, four_names());
  ASSERT_EQ(m.lanes.size(), 5u);
  // Process 100 (the main thread first, then by pool, then tid), then the unknown process.
  std::vector<int64_t> order;
  for (const Lane& l : m.lanes) order.push_back(l.tid);
  EXPECT_EQ(order, (std::vector<int64_t>{100, 103, 999, 101, 102}));
  EXPECT_EQ(m.lanes[0].name, "app");
  EXPECT_EQ(m.lanes[3].pool, "worker-*");
  ASSERT_EQ(m.processes.size(), 1u);  // 999's pid is 100 too (iv() gives every row pid 100)
  const std::vector<Group>& g = m.processes[0].groups;
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].name, "app");
  EXPECT_EQ(g[1].name, "pool-3");
  EXPECT_EQ(g[2].name, "tid 999");
  EXPECT_EQ(g[3].name, "worker-*");
  EXPECT_EQ(g[3].lanes, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(m.processes[0].name, "app");
  EXPECT_EQ(m.lanes[1].count, 1u);
  EXPECT_EQ(m.start_ns, kT0);
  EXPECT_EQ(m.end_ns, kT0 + 1000 * kMs);
}

TEST(TimelineLanes, ColumnTimesSplitIntervalsAcrossColumns) {
  IntervalsFile f = parsed(intervals_text(
      {iv(100, 0, 250, 'C'), iv(100, 250, 600, 'R', 1, 7), iv(100, 600, 1000, 'S')}));
  Model m = build_model(f, nullptr, nullptr, {});
  // Four columns of 250 ms over the window.
  std::vector<ClassTimes> c = column_times(m, m.lanes[0], kT0, kT0 + 1000 * kMs, 4);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_DOUBLE_EQ(c[0][0], 250.0 * kMs);
  EXPECT_DOUBLE_EQ(c[1][1], 250.0 * kMs);
  EXPECT_DOUBLE_EQ(c[2][1], 100.0 * kMs);
  EXPECT_DOUBLE_EQ(c[2][2], 150.0 * kMs);
  EXPECT_DOUBLE_EQ(c[3][2], 250.0 * kMs);
  // Each column's times add up to its length: the intervals tile the window.
  for (const ClassTimes& col : c) {
    double sum = 0;
    for (double v : col) sum += v;
    EXPECT_NEAR(sum, 250.0 * kMs, 1);
  }
  // A range inside one interval.
  std::vector<ClassTimes> z = column_times(m, m.lanes[0], kT0 + 300 * kMs, kT0 + 310 * kMs, 10);
  for (const ClassTimes& col : z) EXPECT_NEAR(col[1], 1.0 * kMs, 1);
}

TEST(TimelineLanes, LookupsAndWho) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  Names names = four_names();
  Model m = build_model(f, nullptr, nullptr, names);
  const Interval* r = interval_at(m, m.lanes[0], kT0 + 700 * kMs);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->state, 'S');
  EXPECT_EQ(r->by, 101);
  EXPECT_EQ(interval_at(m, m.lanes[1], kT0 + 100 * kMs), nullptr);  // pool-3 starts at 200 ms
  EXPECT_EQ(who(names, 101), "worker-1 (tid 101)");
  EXPECT_EQ(who(names, 0), "the idle task");
  EXPECT_EQ(who(names, 55), "tid 55");
  EXPECT_STREQ(class_name(3), "blocked");
}

TEST(TimelineLanes, SlotsSpreadOverTheirTimeAndThreadsWithOnlySlotsHaveLanes) {
  const uint64_t whole = kT0 + 200 * kMs;
  IntervalsFile f = parsed(intervals_text({iv(100, 200, 1000, 'C')}, whole));
  IntervalsFile s = parsed(slots_text({{100, 100, kT0, 60 * kMs, 0, 40 * kMs, 0, 0, 0, 3},
                                       {100, 100, kT0 + 100 * kMs, 100 * kMs, 0, 0, 0, 0, 0, 0},
                                       {200, 100, kT0, 0, 0, 0, 100 * kMs, 0, 0, 1}},
                                      whole));
  Model m = build_model(f, &s, nullptr, {});
  ASSERT_EQ(m.lanes.size(), 2u);
  EXPECT_EQ(m.whole_from_ns, whole);
  EXPECT_EQ(m.lanes[0].slot_count, 2u);
  EXPECT_EQ(m.lanes[1].tid, 200);
  EXPECT_EQ(m.lanes[1].count, 0u);
  // Columns of 50 ms: the first slot's 60/40 split lands half in each of its two columns.
  std::vector<ClassTimes> c = column_times(m, m.lanes[0], kT0, kT0 + 300 * kMs, 6);
  EXPECT_DOUBLE_EQ(c[0][0], 30.0 * kMs);
  EXPECT_DOUBLE_EQ(c[0][2], 20.0 * kMs);
  EXPECT_DOUBLE_EQ(c[1][0], 30.0 * kMs);
  EXPECT_DOUBLE_EQ(c[2][0], 50.0 * kMs);
  EXPECT_DOUBLE_EQ(c[4][0], 50.0 * kMs);  // whole intervals from 200 ms
  const Slot* slot = slot_at(m, m.lanes[0], kT0 + 150 * kMs);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->slot_start_ns, kT0 + 100 * kMs);
  EXPECT_EQ(slot_at(m, m.lanes[0], kT0 + 250 * kMs), nullptr);
  std::vector<ClassTimes> d = column_times(m, m.lanes[1], kT0, kT0 + 100 * kMs, 1);
  EXPECT_DOUBLE_EQ(d[0][3], 100.0 * kMs);
}

timed_samples::Samples test_samples(uint64_t mono_ns) {
  timed_samples::Builder b(100, "app", {}, mono_ns, 5'000'000'000);
  using E = timed_samples::Builder::Entry;
  for (int r = 0; r < 5; ++r) {
    std::vector<E> threads = {
        E{.tid = 100, .root = "[app tid=100]", .frames = "main;tick", .state = 'R'},
        E{.tid = 101,
          .root = "[worker-1 tid=101]",
          .frames = r < 3 ? "run;wait" : "run;work",
          .state = r < 3 ? 'S' : 'R'}};
    if (r < 2)
      threads.push_back(E{.tid = 300, .root = "[helper tid=300]", .frames = "x", .state = 'S'});
    timed_samples::Round round;
    round.time_ns = static_cast<uint64_t>(r) * 100 * kMs;
    round.pid = 100;
    b.add(round, threads);
  }
  return b.take();
}

TEST(TimelineLanes, SampleTicksOnTheSchedulersClock) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  // The samples' time 0 is 50 ms after the window's start.
  timed_samples::Samples s = test_samples(kT0 + 50 * kMs);
  Model m = build_model(f, nullptr, &s, four_names());
  EXPECT_TRUE(m.samples_aligned);
  // Time 0 is the samples' (as on the heatmap's page); the window starts 50 ms before it.
  EXPECT_EQ(m.origin_ns, kT0 + 50 * kMs);
  EXPECT_EQ(m.start_ns, kT0);
  bool minus = false, zero = false;
  for (const scene::Text& t : layout_timeline(m, {.width = 1000}).texts) {
    minus |= t.text.starts_with("-");
    zero |= t.text == "0 s" || t.text == "0.0 s" || t.text == "0.00 s";
  }
  EXPECT_FALSE(minus);  // ticks at whole steps from time 0: 0 s, 0.1 s, ...
  EXPECT_TRUE(zero);
  EXPECT_EQ(build_model(f, nullptr, nullptr, four_names()).origin_ns, kT0);
  // 100 and 101 sampled 5 times, 300 (only sampled: a lane of its own) twice.
  EXPECT_EQ(m.ticks, 12u);
  const Lane* main = nullptr;
  const Lane* helper = nullptr;
  for (const Lane& l : m.lanes) {
    if (l.tid == 100) main = &l;
    if (l.tid == 300) helper = &l;
  }
  ASSERT_NE(main, nullptr);
  ASSERT_NE(helper, nullptr);
  ASSERT_EQ(main->ticks.size(), 5u);
  EXPECT_EQ(main->ticks[0].time_ns, kT0 + 50 * kMs);
  EXPECT_EQ(main->ticks[4].time_ns, kT0 + 450 * kMs);
  EXPECT_EQ(s.stacks[main->ticks[2].stack], "main;tick");
  EXPECT_EQ(helper->ticks.size(), 2u);
  EXPECT_EQ(helper->name, "helper");
  EXPECT_EQ(helper->count, 0u);
  // A converted raw file has no clock: time 0 goes to the window's start.
  timed_samples::Samples raw = test_samples(0);
  Model u = build_model(f, nullptr, &raw, four_names());
  EXPECT_FALSE(u.samples_aligned);
  for (const Lane& l : u.lanes) {
    if (l.tid == 100) {
      EXPECT_EQ(l.ticks[0].time_ns, kT0);
    }
  }
}

TEST(TimelineLanes, TimeZeroBeforeTheFirstThingDrawnIsANegativeOrigin) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  // The sampler's time 0 is 100 ms before the window; its first sample comes 150 ms after it.
  timed_samples::Builder b(100, "app", {}, kT0 - 100 * kMs, 0);
  using E = timed_samples::Builder::Entry;
  const std::vector<E> threads = {
      E{.tid = 100, .root = "[app tid=100]", .frames = "main", .state = 'R'}};
  timed_samples::Round round;
  round.time_ns = 150 * kMs;
  round.pid = 100;
  b.add(round, threads);
  timed_samples::Samples s = b.take();
  Model m = build_model(f, nullptr, &s, four_names());
  EXPECT_EQ(m.start_ns, kT0);
  EXPECT_EQ(m.origin_ns, kT0 - 100 * kMs);
  std::string data;
  append_page_data(&data, m, four_names(), {.title = "T"});
  EXPECT_NE(data.find("\"origin\":-100000000,"), std::string::npos) << data.substr(0, 400);
  EXPECT_NE(data.find("\"samples_t0\":-100000000,"), std::string::npos);
}

TEST(TimelineLanes, OnlyThreadsLeavesTheOthersOut) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  auto pattern = Pattern::compile("^worker");
  ASSERT_TRUE(pattern.has_value());
  Model m = build_model(f, nullptr, nullptr, four_names(), {.only_threads = &*pattern});
  ASSERT_EQ(m.lanes.size(), 2u);
  EXPECT_EQ(m.left_out, 3u);
  EXPECT_EQ(m.processes[0].groups.size(), 1u);
}

TEST(TimelineLanes, PictureRowsPerLaneOrPerPool) {
  IntervalsFile f = parsed(intervals_text(four_threads()));
  Model m = build_model(f, nullptr, nullptr, four_names());
  auto hover_rows = [](const scene::Scene& s) {
    for (const scene::Layer& l : s.layers) {
      if (l.id == "hover") return l.rects.size();
    }
    return size_t{0};
  };
  scene::Scene all = layout_timeline(m, {.title = "t", .width = 800});
  scene::Scene pools = layout_timeline(m, {.title = "t", .width = 800, .group_pools = true});
  EXPECT_EQ(hover_rows(all), 5u);
  EXPECT_EQ(hover_rows(pools), 4u);  // worker-1 and worker-2 as one lane
  bool pool_title = false;
  for (const scene::Layer& l : pools.layers) {
    for (const scene::Rect& r : l.rects) pool_title |= r.title.starts_with("worker-* (2 threads):");
  }
  EXPECT_TRUE(pool_title);
  EXPECT_EQ(all.kind, "timelanes");
  EXPECT_GT(all.height, pools.height);
}

// The page's `iv` decoded as templates/timeline.js decodes it.
std::string base64_decoded(std::string_view s) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
                                   : -1;
    if (v < 0) continue;
    acc = acc << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

TEST(TimelineLanes, PageDataIntervalsDecodeBack) {
  std::vector<Interval> rows = four_threads();
  rows[4] = iv(103, 200, 1000, 'D', 3, 0);
  IntervalsFile f = parsed(intervals_text(rows));
  Model m = build_model(f, nullptr, nullptr, four_names());
  std::string data;
  append_page_data(&data, m, four_names(), {.title = "T"});
  const size_t at = data.find("\"iv\":\"");
  ASSERT_NE(at, std::string::npos);
  const size_t end = data.find('"', at + 6);
  const std::string bytes = base64_decoded(std::string_view(data).substr(at + 6, end - at - 6));
  const size_t st = data.find("\"states\":\"");
  const std::string letters = data.substr(st + 10, data.find('"', st + 10) - st - 10);
  size_t p = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<unsigned char>(bytes[p++]);
      v |= static_cast<uint64_t>(b & 127) << shift;
      if (b < 128) return v;
    }
  };
  size_t decoded = 0;
  for (const Lane& l : m.lanes) {
    uint64_t prev_end = 0;
    int cpu = -1;
    for (size_t i = l.first; i < l.first + l.count; ++i) {
      const Interval& want = f.intervals[i];
      const auto code = static_cast<unsigned char>(bytes[p++]);
      const uint64_t start = code & 128 ? prev_end + varint() : prev_end;
      prev_end = start + varint();
      if (code & 32) cpu = static_cast<int>(varint()) - 1;
      const int64_t by_index = code & 64 ? static_cast<int64_t>(varint()) : -1;
      EXPECT_EQ(start + m.start_ns, want.start_ns);
      EXPECT_EQ(prev_end + m.start_ns, want.end_ns);
      EXPECT_EQ(letters[code & 31], want.state);
      EXPECT_EQ(cpu, want.cpu);
      EXPECT_EQ(by_index >= 0, want.by >= 0);
      ++decoded;
    }
  }
  EXPECT_EQ(decoded, rows.size());
  EXPECT_EQ(p, bytes.size());
  // `by` 0 (the idle task) has its own entry in the tid table.
  EXPECT_NE(data.find("\"the idle task\""), std::string::npos);
}

TEST(TimelineLanes, TimeTexts) {
  EXPECT_EQ(duration_text(850), "850 ns");
  EXPECT_EQ(duration_text(12'500), "12.5 \xc2\xb5s");
  EXPECT_EQ(duration_text(1'250'000'000), "1.25 s");
  EXPECT_EQ(duration_text(125'000'000'000), "2 min 5 s");
  EXPECT_EQ(tick_step(1'000'000'000, 1000, 90), 100'000'000u);
  EXPECT_EQ(seconds_text(12'500'000'000, 500'000'000), "12.5 s");
  EXPECT_EQ(seconds_text(3'000'000'000, 1'000'000'000), "3 s");
  EXPECT_EQ(wall_clock_text(1'795'762'269'250'000'000, 100'000'000), "06:51:09.250");
  std::string b64;
  append_base64(&b64, "hearth");
  EXPECT_EQ(b64, "aGVhcnRo");
  std::string js;
  append_json_string(&js, "a</script>\"");
  EXPECT_EQ(js, "\"a\\u003c/script\\u003e\\\"\"");
  // The pages are ASCII: other characters as \u escapes (a surrogate pair above U+FFFF), bytes
  // that are not UTF-8 as U+FFFD; in HTML text as character references.
  js.clear();
  append_json_string(&js, "\xc3\xa9\xe2\x86\x90\xf0\x9f\x94\xa5\xff\x01");
  EXPECT_EQ(js, "\"\\u00e9\\u2190\\ud83d\\udd25\\ufffd\\ufffd\"");
  EXPECT_EQ(page::html_escape("a\xc3\xa9<\xf0\x9f\x94\xa5\xff"), "a&#x00e9;&lt;&#x1f525;&#xfffd;");
}

TEST(TimelineInputs, DirectoryFilesAndDamage) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  auto none = find_sources({dir.path()});
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("no sched.intervals.tsv"), std::string::npos);
  // A cut-short file: the rows before the cut are kept, the damage names the file and line.
  std::string text = intervals_text(four_threads());
  text.resize(text.rfind("999\t"));
  std::ofstream(dir / kIntervalsName) << text;
  std::ofstream(dir / "other.txt") << "not a recording\n";
  auto sources = find_sources({dir.path()});
  ASSERT_TRUE(sources.has_value()) << sources.error().message;
  EXPECT_EQ(sources->intervals, dir / kIntervalsName);
  auto in = read_inputs(*sources);
  ASSERT_TRUE(in.has_value()) << in.error().message;
  ASSERT_EQ(in->damage.size(), 1u);
  EXPECT_NE(in->damage[0].find(dir / kIntervalsName + ":"), std::string::npos) << in->damage[0];
  EXPECT_EQ(in->intervals.intervals.size(), 5u);
  // Files by kind; a file of no kind the timeline reads, and two of one kind, are refused.
  auto files = find_sources({dir / kIntervalsName});
  ASSERT_TRUE(files.has_value());
  auto bad = find_sources({dir / kIntervalsName, dir / "other.txt"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("other.txt: not a file the timeline reads"),
            std::string::npos);
  auto twice = find_sources({dir / kIntervalsName, dir / kIntervalsName});
  EXPECT_FALSE(twice.has_value());
  // A header that is not one: nothing to draw, an error.
  std::ofstream(dir / "bad.tsv") << "# hearth sched.intervals 1\n# window_ns\tx\n";
  auto bad_header = read_inputs({.intervals = dir / "bad.tsv"});
  EXPECT_FALSE(bad_header.has_value());
}

}  // namespace timeline_lanes_test
}  // namespace hearth::timeline
