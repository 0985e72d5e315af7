// render/timeline/chrome_trace: the Trace Event JSON of a recording's model, parsed back with
// nlohmann/json: metadata per process and thread, one complete event per interval and slot
// with exact times (each ending where the next starts) and the args the README promises, samples as
// instants nested in their interval, their stacks in "stackFrames", and bytes that do not depend on
// how they are cut.
#include "render/timeline/chrome_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/sched_intervals.h"
#include "formats/timed_samples.h"

namespace hearth::timeline {
namespace chrome_trace_test {

using nlohmann::json;
using sched_intervals::Interval;
using sched_intervals::IntervalsFile;
using sched_intervals::Slot;

constexpr uint64_t kT0 = 10'000'000'000;  // the window's start, CLOCK_MONOTONIC
constexpr uint64_t kMs = 1'000'000;

IntervalsFile intervals_file(const std::vector<Interval>& rows, uint64_t whole_from) {
  sched_tsv::SchedHeader h;
  h.targets = {{100, "app"}};
  h.window_start_ns = kT0;
  h.window_end_ns = kT0 + 1000 * kMs;
  sched_intervals::Kept kept{whole_from, 100 * kMs};
  std::string text = sched_intervals::format_header(sched_intervals::FileKind::kIntervals, h, kept);
  for (const Interval& r : rows) sched_intervals::append_interval(&text, r);
  sched_intervals::append_end(&text, rows.size());
  auto f = sched_intervals::parse_intervals(text, "sched.intervals.tsv");
  EXPECT_TRUE(f.has_value()) << (f ? "" : f.error().message);
  return f ? std::move(*f) : IntervalsFile{};
}

IntervalsFile slots_file(const std::vector<Slot>& rows, uint64_t whole_from) {
  sched_tsv::SchedHeader h;
  h.window_start_ns = kT0;
  h.window_end_ns = kT0 + 1000 * kMs;
  sched_intervals::Kept kept{whole_from, 100 * kMs};
  std::string text = sched_intervals::format_header(sched_intervals::FileKind::kSlots, h, kept);
  for (const Slot& r : rows) sched_intervals::append_slot(&text, r);
  sched_intervals::append_end(&text, rows.size());
  auto f = sched_intervals::parse_intervals(text, "sched.slots.tsv");
  EXPECT_TRUE(f.has_value()) << (f ? "" : f.error().message);
  return f ? std::move(*f) : IntervalsFile{};
}

// Two samples of app (pid 100): time 0 is kT0 + 200 ms on CLOCK_MONOTONIC.
timed_samples::Samples two_samples() {
  const std::string text =
      "# hearth samples 1\tpid=100\tname=app\tmono_ns=10200000000\treal_ns=1795762269000000000\n"
      "s\t0\tmain;run;poll\n"
      "s\t1\tmain;run;work\n"
      "t\t100\t100\t[app tid=100]\n"
      "t\t101\t100\t[worker-1 tid=101]\n"
      "r\t0\t100\tcopied=2\treused=0\tstopped=0\tstall_ns=0\n"
      "100\tS\t0\n"
      "101\tR\t1\n"
      "r\t100000000\t100\tcopied=1\treused=1\tstopped=0\tstall_ns=0\n"
      "100\tR\t1\n";
  auto s = timed_samples::parse(text, "stacks.samples.txt");
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return s ? std::move(*s) : timed_samples::Samples{};
}

struct Fixture {
  // Intervals whole from 200 ms; before, two 100 ms slots of thread 100.
  IntervalsFile intervals =
      intervals_file({{100, 100, kT0 + 200 * kMs, kT0 + 300 * kMs + 7, 'S', 0, 101},
                      {100, 100, kT0 + 300 * kMs + 7, kT0 + 310 * kMs, 'R', 1, 0},
                      {100, 100, kT0 + 310 * kMs, kT0 + 1000 * kMs, 'C', 1, -1},
                      {101, 100, kT0 + 200 * kMs, kT0 + 900 * kMs, 'T', 0, -1}},
                     kT0 + 200 * kMs);
  IntervalsFile slots = slots_file({{100, 100, kT0, 60 * kMs, 40 * kMs, 0, 0, 0, 0, 3},
                                    {100, 100, kT0 + 100 * kMs, 0, 0, 100 * kMs, 0, 0, 0, 0}},
                                   kT0 + 200 * kMs);
  timed_samples::Samples samples = two_samples();
  Names names{.threads = {{100, "app"}, {101, "worker-1"}}, .processes = {{100, "app"}}};
  Model model = build_model(intervals, &slots, &samples, names);
};

json events_of(const json& trace, int64_t tid, const std::string& ph) {
  json out = json::array();
  for (const json& e : trace["traceEvents"]) {
    if (e["tid"] == tid && e["ph"] == ph) out.push_back(e);
  }
  return out;
}

TEST(ChromeTrace, MetadataNamesProcessesAndThreadsInLaneOrder) {
  Fixture f;
  json t = json::parse(chrome_trace(f.model, f.names, {.source = "rec"}));
  std::map<int64_t, std::string> thread_names;
  std::map<int64_t, int64_t> order;
  int processes = 0;
  for (const json& e : t["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("ts") &&
                e.contains("name"))
        << e.dump();
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") {
      ++processes;
      EXPECT_EQ(e["pid"], 100);
      EXPECT_EQ(e["args"]["name"], "app");
    }
    if (e["name"] == "thread_name") thread_names[e["tid"]] = e["args"]["name"];
    if (e["name"] == "thread_sort_index") order[e["tid"]] = e["args"]["sort_index"];
  }
  EXPECT_EQ(processes, 1);
  EXPECT_EQ(thread_names, (std::map<int64_t, std::string>{{100, "app"}, {101, "worker-1"}}));
  EXPECT_EQ(order, (std::map<int64_t, int64_t>{{100, 0}, {101, 1}}));
  EXPECT_EQ(t["otherData"]["source"], "rec");
  EXPECT_EQ(t["otherData"]["samples_real_ns"], "1795762269000000000");
}

TEST(ChromeTrace, IntervalsAreCompleteEventsWithExactTimesAndWhoPreemptedOrWoke) {
  Fixture f;
  const std::string text = chrome_trace(f.model, f.names, {});
  // µs since the window's start (kT0) in steps of 1/1024 µs: the sleep from 200 ms to 300 ms +
  // 7 ns is 100,000 µs and 7/1024.
  EXPECT_NE(text.find("\"ts\":200000,\"dur\":100000.0068359375"), std::string::npos);
  json t = json::parse(text);
  json x = events_of(t, 100, "X");
  ASSERT_EQ(x.size(), 5u);  // two slots, three intervals
  EXPECT_EQ(x[0]["name"], "slot");
  EXPECT_EQ(x[0]["args"]["on_cpu_ns"], 60 * kMs);
  EXPECT_EQ(x[0]["args"]["runnable_ns"], 40 * kMs);
  EXPECT_EQ(x[0]["args"]["switches"], 3);
  EXPECT_EQ(x[2]["name"], "sleeping");
  EXPECT_EQ(x[2]["cat"], "sched");
  EXPECT_EQ(x[2]["args"]["state"], "S");
  EXPECT_EQ(x[2]["args"]["waker"], "worker-1 (tid 101)");
  EXPECT_EQ(x[2]["args"]["waker_tid"], 101);
  EXPECT_EQ(x[3]["name"], "runnable");
  EXPECT_EQ(x[3]["args"]["preemptor"], "the idle task");
  EXPECT_EQ(x[3]["args"]["cpu"], 1);
  EXPECT_EQ(x[4]["name"], "on CPU");
  EXPECT_FALSE(x[4]["args"].contains("waker") || x[4]["args"].contains("preemptor"));
  // A state of the "other" class keeps the kernel's letter in its name.
  json other = events_of(t, 101, "X");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0]["name"], "other (T)");
  // One after the other, never overlapping: each starts where the one before ends (in ns).
  // Each ends exactly where the next starts, as doubles (speedscope adds them so) and as ns
  // rounded (the ns are kept: 300 ms + 7 ns).
  for (size_t i = 1; i < x.size(); ++i) {
    EXPECT_EQ(x[i]["ts"].get<double>(),
              x[i - 1]["ts"].get<double>() + x[i - 1]["dur"].get<double>())
        << i;
  }
  EXPECT_EQ(std::llround((x[2]["ts"].get<double>() + x[2]["dur"].get<double>()) * 1000),
            300 * kMs + 7);
  EXPECT_EQ(t["otherData"]["ts_zero_mono_ns"], std::to_string(kT0));
}

TEST(ChromeTrace, SamplesAreInstantsWithTheirStacksLeafFirst) {
  Fixture f;
  json t = json::parse(chrome_trace(f.model, f.names, {}));
  json i = events_of(t, 100, "i");
  ASSERT_EQ(i.size(), 2u);
  EXPECT_EQ(i[0]["s"], "t");
  EXPECT_EQ(i[0]["name"], "poll");
  EXPECT_EQ(i[0]["args"]["state"], "S");
  EXPECT_EQ(i[0]["args"]["stack"], json({"poll", "run", "main"}));
  EXPECT_EQ(i[1]["name"], "work");
  const std::string text = chrome_trace(f.model, f.names, {});
  EXPECT_NE(text.find("\"ts\":300000,\"name\":\"work\""), std::string::npos);
  // The stack frames: the leaf's chain of parents is the stack.
  const json& frames = t["stackFrames"];
  std::vector<std::string> chain;
  for (std::string id = i[1]["sf"]; !id.empty();) {
    const json& fr = frames[id];
    chain.push_back(fr["name"]);
    id = fr.contains("parent") ? fr["parent"].get<std::string>() : "";
  }
  EXPECT_EQ(chain, (std::vector<std::string>{"work", "run", "main"}));
  EXPECT_EQ(frames.size(), 4u);  // main, run, poll, work: the shared prefix once
  // A sample at an interval's start comes after it in the file, so it nests in it.
  const size_t interval = text.find("\"tid\":100,\"ts\":200000,\"dur\"");
  ASSERT_NE(interval, std::string::npos);
  EXPECT_LT(interval, text.find("\"name\":\"poll\""));
}

TEST(ChromeTrace, TheBytesDoNotDependOnHowTheyAreCut) {
  Fixture f;
  const std::string whole = chrome_trace(f.model, f.names, {.source = "x"});
  EXPECT_EQ(whole, chrome_trace(f.model, f.names, {.source = "x"}));
  EXPECT_TRUE(is_chrome_trace_path("out.trace.json"));
  EXPECT_FALSE(is_chrome_trace_path("out.speedscope.json"));
  EXPECT_FALSE(is_chrome_trace_path("out.json"));
}

}  // namespace chrome_trace_test
}  // namespace hearth::timeline
