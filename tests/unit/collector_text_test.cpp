// The report's collectors table in words (render/report/collector_text.h).
#include "render/report/collector_text.h"

#include <gtest/gtest.h>

namespace hearth::report {
namespace {

using json = nlohmann::json;

TEST(CollectorText, StacksFiguresAreSentencesWithUnits) {
  json f = json::parse(R"({"status": "ok", "samples": 100, "frequency_hz": 10.0, "threads": 15,
      "stacks": 1490, "truncated_stacks": 0, "skipped_threads": 10, "stall_median_ms": 1.484,
      "stall_max_ms": 10.218, "stall_per_thread_median_us": 1409.0, "method": "bpf",
      "copied_without_stop": 1400, "unchanged": 80, "stopped": 10,
      "skipped_thread_names": ["7 (w) D: did not stop in time"]})");
  EXPECT_EQ(collector_text("stacks", f),
            "100 samples at 10 Hz of up to 15 threads: 1,490 stacks. 10 times a thread was "
            "skipped (it did not stop in time, or its stack could not be read). Taken by bpf: "
            "1,400 copied without a stop, 80 unchanged since their last copy, 10 in a ptrace "
            "stop. The target's stall per sample: median 1.484 ms, max 10.218 ms; per thread: "
            "median 1409 \xc2\xb5s.");
}

// The ptrace all-stop snapshot on a saturated host: threads not stopped by the instant's
// deadline are taken alone, and the sentence names the first few.
TEST(CollectorText, ThreadsTakenAloneAreNamed) {
  json f = json::parse(R"({"status": "ok", "samples": 1, "method": "ptrace", "stopped": 103,
      "threads_taken_alone": 7, "alone_thread_names": ["11 (a) R: 2.5 ms after the others",
      "12 (b) R: 3.0 ms after the others", "13 (c) R: 3.1 ms after the others",
      "14 (d) R: 3.2 ms after the others", "15 (e) R: 3.3 ms after the others",
      "16 (f) R: 3.4 ms after the others"]})");
  std::string t = collector_text("stacks", f);
  EXPECT_NE(t.find(" 7 threads did not stop within the snapshot's instant and were taken alone "
                   "just after it: 11 (a) R: 2.5 ms after the others; 12 (b) R: 3.0 ms after the "
                   "others; 13 (c) R: 3.1 ms after the others; 14 (d) R: 3.2 ms after the others; "
                   "15 (e) R: 3.3 ms after the others; and 2 more."),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("Also:"), std::string::npos) << t;
  f["threads_taken_alone"] = 1;
  f["alone_thread_names"] = json::array({"11 (a) R: 2.5 ms after the others"});
  t = collector_text("stacks", f);
  EXPECT_NE(t.find(" 1 thread did not stop within the snapshot's instant and was taken alone "
                   "just after it: 11 (a) R: 2.5 ms after the others. "),
            std::string::npos)
      << t;
}

TEST(CollectorText, SchedAndMmv) {
  json sched = json::parse(R"({"status": "ok", "events": 198122, "sched_switch": 121801,
      "lost": 0, "threads": 15, "window_s": 9.892, "selection": "event filter, 15 threads in 1 range",
      "estimated_switch_ins": 3})");
  EXPECT_EQ(collector_text("sched", sched),
            "198,122 events (121,801 context switches) in 9.89 s, none lost. 15 threads, "
            "selected by event filter, 15 threads in 1 range. 3 switch-ins placed at a wakeup or "
            "migration (the kernel left their switch out of the stream).");
  sched["lost"] = 12;
  EXPECT_NE(collector_text("sched", sched).find(", 12 lost (the figures undercount)."),
            std::string::npos);
  // What the intervals kept: the whole window, or its end and slots before.
  sched["intervals"] = 250000;
  sched["intervals_whole_s"] = 9.892;
  sched["intervals_whole_from_ns"] = 81234567890123u;
  sched["intervals_slot_s"] = 0;
  sched["slots"] = 0;
  std::string t = collector_text("sched", sched);
  EXPECT_NE(t.find(" 250,000 state intervals for the whole window."), std::string::npos) << t;
  EXPECT_EQ(t.find("Also:"), std::string::npos) << t;
  sched["intervals_whole_s"] = 60.5;
  sched["intervals_slot_s"] = 1;
  sched["slots"] = 1500;
  t = collector_text("sched", sched);
  EXPECT_NE(t.find(" 250,000 state intervals for the last 60.5 s of the window, the time before "
                   "in 1 s slots."),
            std::string::npos)
      << t;
  json mmv = json::parse(
      R"({"status": "ok", "files": 1, "snapshots": 11, "errors": 0, "interval_s": 0.5})");
  EXPECT_EQ(collector_text("mmv", mmv), "1 MMV file read every 0.5 s: 11 snapshots, no errors.");
}

// Keys no sentence knows (a newer hearth's) are still shown, as they are.
TEST(CollectorText, UnknownKeysAreListed) {
  json f = json::parse(R"({"status": "ok", "samples": 2, "new_figure": 1.5, "flag": true,
      "message": "m", "list": [1]})");
  EXPECT_EQ(collector_text("stacks", f), "2 samples. Also: flag yes, new_figure 1.5.");
  EXPECT_EQ(collector_text("future", json::parse(R"({"status": "ok", "n": 3})")), "n 3");
  EXPECT_EQ(collector_text("mmv", json::parse(R"({"status": "skipped", "message": "x"})")), "");
}

}  // namespace
}  // namespace hearth::report
