#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "render/charts/charts.h"
#include "render/charts/sections.h"
#include "render/scene/format.h"

namespace hearth::charts {
namespace {

using sched_tsv::FileKind;
using sched_tsv::SchedFile;

constexpr uint64_t kMs = 1'000'000;

SchedFile file(FileKind kind, uint64_t window_ns = 1000 * kMs) {
  SchedFile f;
  f.path = "/some/dir/sched." +
           std::string(kind == FileKind::kStates       ? "states"
                       : kind == FileKind::kTenancy    ? "tenancy"
                       : kind == FileKind::kPreemptors ? "preemptors"
                                                       : "wakeups") +
           ".tsv";
  f.header.kind = kind;
  f.header.version = 1;
  f.header.targets = {"pid=1 comm=app"};
  f.header.window_start_ns = 5000;
  f.header.window_end_ns = 5000 + window_ns;
  f.header.window_ns = window_ns;
  return f;
}

// on, runnable, sleeping, blocked in ms.
sched_tsv::ThreadStates thread(int64_t tid, std::string comm, uint64_t on, uint64_t run,
                               uint64_t sleep, uint64_t blocked) {
  return {tid, std::move(comm), 1, on * kMs, run * kMs, sleep * kMs, blocked * kMs, 0, 5, 6, 7, 0};
}

SchedFile sample_states() {
  SchedFile f = file(FileKind::kStates);
  f.states = {thread(1, "app", 100, 0, 900, 0), thread(2, "worker-1", 200, 300, 500, 0),
              thread(3, "worker-2", 400, 100, 400, 100), thread(4, "io", 100, 50, 50, 800),
              thread(5, "hog", 500, 500, 0, 0)};
  return f;
}

std::vector<std::string> labels(const std::vector<StatesRow>& rows) {
  std::vector<std::string> out;
  for (const StatesRow& r : rows) out.push_back(thread_label(r.comm, r.tid, r.tids.size()));
  return out;
}

const scene::Layer& layer(const scene::Scene& s, const std::string& id) {
  for (const scene::Layer& l : s.layers) {
    if (l.id == id) return l;
  }
  ADD_FAILURE() << "no layer " << id;
  static scene::Layer none;
  return none;
}

// Rects of one bar: those sharing the first rect's y.
std::vector<scene::Rect> first_bar(const scene::Layer& bars) {
  std::vector<scene::Rect> out;
  for (const scene::Rect& r : bars.rects) {
    if (r.y == bars.rects.front().y) out.push_back(r);
  }
  return out;
}

TEST(SchedCharts, SortOrders) {
  SchedFile f = sample_states();
  EXPECT_EQ(labels(states_rows(f, false, SortKey::kRunnable)),
            (std::vector<std::string>{"hog 5", "worker-1 2", "worker-2 3", "io 4", "app 1"}));
  EXPECT_EQ(labels(states_rows(f, false, SortKey::kOnCpu)),
            (std::vector<std::string>{"hog 5", "worker-2 3", "worker-1 2", "app 1", "io 4"}));
  EXPECT_EQ(labels(states_rows(f, false, SortKey::kBlocked))[0], "io 4");
  EXPECT_EQ(labels(states_rows(f, false, SortKey::kName)),
            (std::vector<std::string>{"app 1", "hog 5", "io 4", "worker-1 2", "worker-2 3"}));
  EXPECT_EQ(labels(states_rows(f, false, SortKey::kTid)),
            (std::vector<std::string>{"app 1", "worker-1 2", "worker-2 3", "io 4", "hog 5"}));
}

TEST(SchedCharts, GroupingSumsPools) {
  std::vector<StatesRow> rows = states_rows(sample_states(), true, SortKey::kName);
  ASSERT_EQ(labels(rows), (std::vector<std::string>{"app 1", "hog 5", "io 4",
                                                    "worker-* \xc3\x97"
                                                    "2"}));
  const StatesRow& pool = rows[3];
  EXPECT_EQ(pool.tids, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(pool.ns[static_cast<int>(State::kOnCpu)], 600.0 * kMs);
  EXPECT_EQ(pool.ns[static_cast<int>(State::kRunnable)], 400.0 * kMs);
  EXPECT_EQ(pool.ns[static_cast<int>(State::kBlocked)], 100.0 * kMs);
  EXPECT_EQ(pool.switches[static_cast<int>(State::kRunnable)], 10u);
  EXPECT_EQ(thread_who(pool.comm, pool.tid, pool.tids.size()), "worker-* (2 threads)");
  EXPECT_EQ(group_name("kworker/12:3H-ev"), "kworker/*:*H-ev");
}

TEST(SchedCharts, SegmentWidthsProportionalToTime) {
  SchedFile f = file(FileKind::kStates);
  f.states = {thread(7, "t", 250, 500, 250, 0)};  // the window is 1000 ms
  ChartOptions o;
  o.width = 1000;
  scene::Scene s = layout_charts({f}, o, nullptr);
  std::vector<scene::Rect> bar = first_bar(layer(s, "s0-bars"));
  ASSERT_EQ(bar.size(), 3u);
  double full = bar[0].w + bar[1].w + bar[2].w;
  EXPECT_NEAR(bar[0].w / full, 0.25, 1e-9);
  EXPECT_NEAR(bar[1].w / full, 0.50, 1e-9);
  EXPECT_DOUBLE_EQ(bar[1].x, bar[0].x + bar[0].w);  // adjacent, left to right
  // The time view: this thread lived the whole window, so the same geometry (to 0.1 px).
  for (const scene::Rect& r : bar) {
    ASSERT_EQ(r.attrs.size(), 1u);
    EXPECT_EQ(r.attrs[0].first, "data-ms");
    double l = scene::round_px(r.x), rr = scene::round_px(r.x + r.w);
    EXPECT_EQ(r.attrs[0].second, scene::format_px(l) + " " + scene::format_px(rr - l));
  }
  EXPECT_EQ(bar[1].title, "7 t: runnable 500.0 ms (50.0%), 5 switch-outs");
  EXPECT_EQ(bar[0].title, "7 t: on CPU 250.0 ms (25.0%)");
  EXPECT_EQ(bar[1].label, "50%");
}

// Stopped time (a tracer's ptrace stops, "t") is its own segment between blocked and other,
// named after who stopped the threads: hearth's own sampler in a `hearth record` report, any
// tracer elsewhere.
TEST(SchedCharts, StoppedTimeIsItsOwnStateNamedByWhoStoppedTheThreads) {
  SchedFile f = file(FileKind::kStates);
  f.header.version = 2;
  sched_tsv::ThreadStates t = thread(7, "t", 500, 100, 300, 0);
  t.stopped_ns = 50 * kMs;
  t.switches_stopped = 10;
  t.other_ns = 50 * kMs;
  f.states = {t};
  for (StoppedBy by : {StoppedBy::kTracer, StoppedBy::kHearth}) {
    const bool hearth = by == StoppedBy::kHearth;
    SCOPED_TRACE(hearth ? "hearth" : "tracer");
    Section sec = states_section(f, nullptr, nullptr, {.stopped_by = by});
    ASSERT_EQ(sec.legend.size(), 6u);
    EXPECT_EQ(sec.legend[4].label, hearth ? "stopped by hearth (t)" : "stopped (traced, t)");
    EXPECT_EQ(sec.legend[5].label, "other");
    ASSERT_EQ(sec.bars.size(), 1u);
    ASSERT_EQ(sec.bars[0].segments.size(), 6u);
    const Segment& stopped = sec.bars[0].segments[4];
    EXPECT_EQ(stopped.css_class, "stopped");
    EXPECT_EQ(stopped.value, 50.0 * kMs);
    EXPECT_EQ(stopped.title, std::string("7 t: ") +
                                 (hearth ? "stopped by hearth" : "stopped (traced)") +
                                 " 50.0 ms (5.0%), 10 switch-outs");
    EXPECT_EQ(sec.bars[0].segments[5].css_class, "other");
    EXPECT_EQ(sec.legend[4].fill, stopped.fill);
    EXPECT_NE(stopped.fill, sec.bars[0].segments[5].fill);
  }
  // A version-1 file has no stopped time (it is in other): no legend entry for it.
  f.header.version = 1;
  Section v1 = states_section(f, nullptr, nullptr, {.stopped_by = StoppedBy::kHearth});
  ASSERT_EQ(v1.legend.size(), 5u);
  EXPECT_EQ(v1.legend[4].label, "other");
  f.header.version = 2;
  // The stopped segment sits between blocked and other in the picture too.
  scene::Scene s = layout_charts({f}, {}, nullptr);
  std::vector<std::string> classes;
  for (const scene::Rect& r : first_bar(layer(s, "s0-bars"))) classes.push_back(r.css_class);
  EXPECT_EQ(classes,
            (std::vector<std::string>{"oncpu", "runnable", "sleeping", "stopped", "other"}));
}

TEST(SchedCharts, EachThreadsRowIsALinkTargetWithAUniqueId) {
  for (bool group : {false, true}) {
    SCOPED_TRACE(group ? "grouped" : "per thread");
    scene::Scene s = layout_charts({sample_states()}, {.group_threads = group}, nullptr);
    const scene::Layer& rows = layer(s, "s0-rows");
    std::set<std::string> ids;
    for (const scene::Rect& r : rows.rects) {
      ASSERT_EQ(r.attrs.size(), 1u);
      EXPECT_EQ(r.attrs[0].first, "id");
      EXPECT_TRUE(ids.insert(r.attrs[0].second).second) << "duplicate " << r.attrs[0].second;
      EXPECT_TRUE(r.hover_only);  // drawn by interactive backends only: PNGs unchanged
      EXPECT_EQ(r.css_class, "row");
    }
    // One per thread row; a pool of several threads (worker-1, worker-2 grouped) has none.
    std::set<std::string> want = {"thread-1", "thread-4", "thread-5"};
    if (!group) want.insert({"thread-2", "thread-3"});
    EXPECT_EQ(ids, want);
    // Each row spans its bar: the bar's segments lie within the row's band.
    const scene::Layer& bars = layer(s, "s0-bars");
    for (const scene::Rect& seg : bars.rects) {
      bool inside = false;
      for (const scene::Rect& r : rows.rects)
        inside |= seg.y >= r.y && seg.y + seg.h <= r.y + r.h && seg.x >= r.x &&
                  seg.x + seg.w <= r.x + r.w + 1e-9;
      if (seg.title.rfind("worker-* ", 0) != 0) {
        EXPECT_TRUE(inside) << seg.title;
      }
    }
  }
}

TEST(SchedCharts, RowIdsStayUniqueWhenTwoRecordingsChartTheSameThreads) {
  scene::Scene s = layout_charts({sample_states(), sample_states()}, {}, nullptr);
  std::set<std::string> ids;
  size_t rows = 0;
  for (const scene::Layer& l : s.layers) {
    for (const scene::Rect& r : l.rects) {
      for (const auto& [k, v] : r.attrs) {
        if (k != "id") continue;
        ++rows;
        EXPECT_TRUE(ids.insert(v).second) << "duplicate id " << v;
      }
    }
  }
  EXPECT_EQ(rows, 10u);                  // five threads, twice
  EXPECT_EQ(ids.count("thread-1"), 1u);  // the first recording's rows keep the plain id
}

TEST(SchedCharts, ShortLivedThreadIsShortInTheTimeView) {
  SchedFile f = file(FileKind::kStates);
  f.states = {thread(1, "long", 500, 0, 500, 0), thread(2, "short", 100, 0, 100, 0)};
  scene::Scene s = layout_charts({f}, {.sort = SortKey::kTid}, nullptr);
  const scene::Layer& bars = layer(s, "s0-bars");
  ASSERT_EQ(bars.rects.size(), 4u);
  auto ms_width = [](const scene::Rect& r) {
    return std::stod(r.attrs[0].second.substr(r.attrs[0].second.find(' ') + 1));
  };
  EXPECT_NEAR(bars.rects[0].w, bars.rects[2].w, 1e-9);  // both 50% in the percent view
  EXPECT_NEAR(ms_width(bars.rects[2]) / ms_width(bars.rects[0]), 0.2, 0.01);
}

TEST(SchedCharts, RunnableTooltipNamesTopPreemptors) {
  SchedFile st = file(FileKind::kStates);
  st.states = {thread(10, "hog-1", 400, 600, 0, 0)};
  SchedFile pre = file(FileKind::kPreemptors);
  pre.preemptors = {{10, "hog-1", 1, 11, "hog-2", 40, 500 * kMs},
                    {10, "hog-1", 15, 15, "kworker/0:1", 3, 60 * kMs},
                    {10, "hog-1", 900, 901, "db", 2, 20 * kMs},
                    {10, "hog-1", 900, 902, "db", 1, 15 * kMs},
                    {10, "hog-1", 22, 22, "ksoftirqd/0", 1, 5 * kMs},
                    {99, "other", 1, 11, "hog-2", 1, 1 * kMs}};
  Section sec = states_section(st, &pre, nullptr, {});
  ASSERT_EQ(sec.bars.size(), 1u);
  EXPECT_EQ(sec.bars[0].segments[1].title,
            "10 hog-1: runnable 600.0 ms (60.0%), 5 switch-outs \xc2\xb7 preempted by 11 hog-2 "
            "500.0 ms (40\xc3\x97), 15 kworker/0:1 60.0 ms (3\xc3\x97), 901 db 20.0 ms "
            "(2\xc3\x97), +2 others 20.0 ms");
  // A different recording's preemptors are not matched to these states.
  pre.header.window_end_ns += 1;
  scene::Scene s = layout_charts({st, pre}, {}, nullptr);
  EXPECT_EQ(first_bar(layer(s, "s0-bars"))[1].title.find("preempted"), std::string::npos);
}

// Every text and tooltip of a scene, one per line.
std::string all_text(const scene::Scene& s) {
  std::string out;
  for (const scene::Text& t : s.texts) out += t.text + "\n";
  for (const scene::Layer& l : s.layers) {
    for (const scene::Rect& r : l.rects) out += r.title + "\n";
  }
  return out;
}

// The thread names a recording's stack sampler gave (roles of unnamed threads) replace comm
// wherever the charts name a thread, a preemptor too; other threads keep their comm.
TEST(SchedCharts, ThreadNamesFromTheStackSamplerReplaceComm) {
  SchedFile st = file(FileKind::kStates);
  st.states = {thread(1, "app", 100, 0, 900, 0), thread(2, "app", 200, 300, 500, 0),
               thread(3, "app", 400, 100, 400, 100), thread(4, "app", 100, 0, 900, 0)};
  SchedFile ten = file(FileKind::kTenancy);
  ten.tenancy = {{2, "app", 0, 200 * kMs, 3}, {3, "app", 1, 400 * kMs, 4}};
  SchedFile pre = file(FileKind::kPreemptors);
  pre.preemptors = {{2, "app", 1, 3, "app", 4, 300 * kMs}};
  ChartOptions o;
  o.thread_names = {{2, "app:flush_main"}, {3, "app:handle_connection"}, {77, "gone:x"}};
  const std::string text = all_text(layout_charts({st, ten, pre}, o, nullptr));
  EXPECT_NE(text.find("app:flush_main 2"), std::string::npos) << text;            // bar label
  EXPECT_NE(text.find("2 app:flush_main: runnable"), std::string::npos) << text;  // tooltip
  EXPECT_NE(text.find("3 app:handle_connection"), std::string::npos) << text;     // preemptor
  EXPECT_NE(text.find("app 4"), std::string::npos) << text;  // not sampled: comm
  EXPECT_EQ(text.find("gone:x"), std::string::npos);
  // Pools of unnamed threads group by role.
  o.thread_names = {{2, "app:worker_main"}, {3, "app:worker_main"}};
  o.group_threads = true;
  const std::string grouped = all_text(layout_charts({st}, o, nullptr));
  EXPECT_NE(grouped.find("app:worker_main \xc3\x97"
                         "2"),
            std::string::npos)
      << grouped;
  // Without names: comm, as before.
  EXPECT_EQ(all_text(layout_charts({st, ten, pre}, {}, nullptr)).find("flush_main"),
            std::string::npos);
}

TEST(SchedCharts, CpuColoursStable) {
  std::set<std::tuple<int, int, int>> seen;
  for (int cpu = 0; cpu < 36; ++cpu) {
    scene::Rgb c = cpu_color(cpu);
    EXPECT_TRUE(seen.insert({c.r, c.g, c.b}).second) << "cpu " << cpu;
    EXPECT_EQ(cpu_color(cpu), c);
  }
  // CPU 3 is drawn in cpu_color(3) whichever CPUs the threads ran on.
  SchedFile a = file(FileKind::kTenancy), b = file(FileKind::kTenancy);
  a.tenancy = {{1, "x", 3, 10 * kMs, 1}};
  b.tenancy = {{1, "x", 0, 10 * kMs, 1}, {1, "x", 1, 10 * kMs, 1}, {1, "x", 3, 10 * kMs, 1}};
  Section sa = tenancy_by_thread_section(a, {}), sb = tenancy_by_thread_section(b, {});
  EXPECT_EQ(sa.bars[0].segments[0].fill, cpu_color(3));
  EXPECT_EQ(sb.bars[0].segments[2].fill, cpu_color(3));
  EXPECT_EQ(sb.legend[2].label, "CPU 3");
  EXPECT_EQ(sb.bars[0].segments[2].title,
            "1 x: CPU 3 10.0 ms (33.3% of its time on CPU), 1 switch-ins");
}

TEST(SchedCharts, TenancyByCpuListsThreadsBusiestFirst) {
  SchedFile t = file(FileKind::kTenancy);
  t.tenancy = {{1, "a", 0, 10 * kMs, 1}, {2, "b", 0, 30 * kMs, 2}, {2, "b", 1, 5 * kMs, 1}};
  Section sec = tenancy_by_cpu_section(t, {});
  ASSERT_EQ(sec.bars.size(), 2u);
  EXPECT_EQ(sec.bars[0].label, "CPU 0");
  ASSERT_EQ(sec.bars[0].segments.size(), 2u);
  EXPECT_EQ(sec.bars[0].segments[0].label, "b");
  EXPECT_EQ(sec.bars[0].segments[0].fill, rank_color(0));  // b is the busiest thread overall
  EXPECT_EQ(sec.bars[1].segments[0].fill, rank_color(0));  // and keeps its colour on CPU 1
  EXPECT_EQ(sec.bars[0].segments[1].title,
            "CPU 0: 1 a 10.0 ms (25.0% of its time with these threads), 1 switch-ins");
}

TEST(SchedCharts, PreemptorsByTotalTime) {
  SchedFile p = file(FileKind::kPreemptors);
  p.preemptors = {{10, "a", 15, 15, "kworker/0:1", 3, 60 * kMs},
                  {11, "b", 15, 15, "kworker/0:1", 2, 50 * kMs},
                  {10, "a", 1, 11, "b", 40, 100 * kMs}};
  Section sec = preemptors_section(p, {});
  ASSERT_EQ(sec.bars.size(), 2u);
  EXPECT_EQ(sec.bars[0].label, "kworker/0:1 15");
  EXPECT_EQ(sec.bars[0].note, "110.0 ms \xc2\xb7 5\xc3\x97");
  ASSERT_EQ(sec.bars[0].segments.size(), 2u);
  EXPECT_EQ(sec.bars[0].segments[0].title,
            "15 kworker/0:1 (pid 15) took 60.0 ms from 10 a in 3 preemptions");
  EXPECT_EQ(sec.bars[1].label, "b 11");
  EXPECT_EQ(sec.full_ns, 110.0 * kMs);

  sec = preemptors_section(p, {.max_preemptors = 1});
  EXPECT_EQ(sec.bars.size(), 1u);
  EXPECT_EQ(sec.footnote, "+1 more preemptors not shown: 100.0 ms \xc2\xb7 40\xc3\x97");
}

TEST(SchedCharts, HundredsOfThreadsShrinkBarsThenGrow) {
  SchedFile f = file(FileKind::kStates);
  for (int i = 0; i < 30; ++i) f.states.push_back(thread(i + 1, "t", 1, 1, 1, 0));
  ChartStats st;
  scene::Scene few = layout_charts({f}, {}, &st);
  EXPECT_EQ(st.bars, 30u);
  for (int i = 30; i < 500; ++i) f.states.push_back(thread(i + 1, "t", 1, 1, 1, 0));
  scene::Scene many = layout_charts({f}, {}, &st);
  std::vector<double> ys;
  for (const scene::Rect& r : layer(many, "s0-bars").rects) {
    if (ys.empty() || ys.back() != r.y) ys.push_back(r.y);
  }
  ASSERT_EQ(ys.size(), 500u);
  EXPECT_DOUBLE_EQ(ys[1] - ys[0], 10);  // the smallest pitch
  EXPECT_GT(many.height, 500 * 10);
  EXPECT_LT(few.height, 1000);
}

TEST(SchedCharts, WakeupLatencyAnnotatesSleepingAndBlocked) {
  SchedFile st = file(FileKind::kStates), wk = file(FileKind::kWakeups);
  st.states = {thread(1, "a", 100, 0, 800, 100), thread(2, "w1", 1, 0, 1, 0),
               thread(3, "w2", 1, 0, 1, 0)};
  wk.wakeups = {{1, "a", 140, 8200, 21000, 64000, 81000, 3, {}},
                {2, "w1", 10, 1000, 2000, 3000, 4000, 0, {}},
                {3, "w2", 5, 1000, 2000, 5000, 6000, 0, {}}};
  Section sec = states_section(st, nullptr, &wk, {.sort = SortKey::kTid});
  EXPECT_EQ(sec.bars[0].segments[2].title,
            "1 a: sleeping 800.0 ms (80.0%), 6 switch-outs \xc2\xb7 wakeup latency p50 8.2 "
            "\xc2\xb5s, p99 64.0 \xc2\xb5s, max 81.0 \xc2\xb5s (140 wakeups)");
  EXPECT_NE(sec.bars[0].segments[3].title.find("wakeup latency"), std::string::npos);
  EXPECT_EQ(sec.bars[0].segments[1].title.find("wakeup latency"), std::string::npos);
  sec = states_section(st, nullptr, &wk, {.sort = SortKey::kTid, .group_threads = true});
  EXPECT_NE(sec.bars[1].segments[2].title.find(
                "wakeup latency worst p99 5.0 \xc2\xb5s, max 6.0 \xc2\xb5s (15 wakeups)"),
            std::string::npos);
}

TEST(SchedCharts, SectionsInFixedOrderAndWakeupsSkipped) {
  SchedFile p = file(FileKind::kPreemptors), t = file(FileKind::kTenancy),
            s = file(FileKind::kStates), w = file(FileKind::kWakeups);
  ChartStats st;
  scene::Scene sc = layout_charts({p, w, t, s}, {}, &st);
  EXPECT_EQ(sc.kind, "chart");
  EXPECT_EQ(st.sections, 4u);
  EXPECT_TRUE(st.skipped.empty());          // the states chart uses the wakeups
  w.header.targets = {"pid=2 comm=other"};  // another recording's wakeups annotate nothing
  layout_charts({p, w, t, s}, {}, &st);
  EXPECT_EQ(st.skipped, (std::vector<std::string>{"sched.wakeups.tsv"}));
  std::vector<std::string> titles;
  for (const scene::Text& x : sc.texts) {
    if (x.id.ends_with("-title")) titles.push_back(x.text.substr(0, x.text.find(':')));
    if (x.id == "title") {
      EXPECT_EQ(x.text, "Scheduler: pid=1 comm=app");
    }
  }
  EXPECT_EQ(titles, (std::vector<std::string>{"Thread states", "CPU tenancy by thread",
                                              "CPU tenancy by CPU", "Preemptors"}));
}

TEST(SchedCharts, LostEventsWarn) {
  SchedFile s = file(FileKind::kStates);
  s.header.lost = 1234;
  bool warn = false;
  EXPECT_EQ(recording_facts(s, &warn),
            "sched.states.tsv \xc2\xb7 pid=1 comm=app \xc2\xb7 window 1.00 s \xc2\xb7 1,234 events "
            "LOST: times are incomplete");
  EXPECT_TRUE(warn);
}

TEST(SchedCharts, Formatting) {
  EXPECT_EQ(format_ns(850), "850 ns");
  EXPECT_EQ(format_ns(12'345), "12.3 \xc2\xb5s");
  EXPECT_EQ(format_ns(123'400'000), "123.4 ms");
  EXPECT_EQ(format_ns(12'345'000'000), "12.35 s");
  EXPECT_EQ(format_pct(1, 8), "12.5%");
  EXPECT_EQ(format_pct(1, 0), "0.0%");
  EXPECT_EQ(elide("worker-thread", 8), "worker-\xe2\x80\xa6");
  EXPECT_EQ(elide("short", 8), "short");
  std::vector<Tick> ticks = time_ticks(30e9, 6);
  ASSERT_EQ(ticks.size(), 7u);
  EXPECT_EQ(ticks[1].label, "5 s");
  EXPECT_EQ(ticks[6].ns, 30e9);
  ticks = time_ticks(1.5e6, 4);
  EXPECT_EQ(ticks[1].label, "0.5 ms");
  EXPECT_EQ(ticks.back().label, "1.5 ms");
}

}  // namespace
}  // namespace hearth::charts
