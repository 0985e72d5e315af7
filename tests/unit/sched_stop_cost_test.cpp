// stop_cost: the scheduler's view of what a tracer's stops cost the threads of a recording.
#include "collectors/sched/stop_cost.h"

#include <gtest/gtest.h>

namespace hearth::sched {
namespace {

// A thread of WINDOW ns: STOPPED_NS of it in STOPS traced stops, the rest on CPU and sleeping.
ThreadStates thread(pid_t tid, uint64_t window, uint64_t stopped_ns, uint64_t stops) {
  ThreadStates t;
  t.tid = tid;
  t.pid = 1;
  t.comm = "t";
  t.on_cpu_ns = (window - stopped_ns) / 2;
  t.sleeping_ns = window - stopped_ns - t.on_cpu_ns;
  t.stopped_ns = stopped_ns;
  t.switches_stopped = stops;
  return t;
}

TEST(StopCost, NoThreadsNoStops) {
  StopCost c = stop_cost({});
  EXPECT_EQ(c.threads, 0u);
  EXPECT_EQ(c.share, 0);
  EXPECT_EQ(c.median_stop_ns, 0);
  c = stop_cost({thread(1, 1000, 0, 0), thread(2, 1000, 0, 0)});
  EXPECT_EQ(c.threads, 2u);
  EXPECT_EQ(c.stopped_threads, 0u);
  EXPECT_EQ(c.thread_ns, 2000u);
  EXPECT_EQ(c.share, 0);
  EXPECT_EQ(c.median_stop_ns, 0);
}

TEST(StopCost, ShareOfTheThreadsTimeAndMedianOfEachThreadsMeanStop) {
  // Three threads of 1 s each: 10 stops of 50 µs, 10 of 100 µs, 4 of 1 ms; one never stopped.
  constexpr uint64_t kS = 1'000'000'000;
  StopCost c = stop_cost({thread(1, kS, 500'000, 10), thread(2, kS, 1'000'000, 10),
                          thread(3, kS, 4'000'000, 4), thread(4, kS, 0, 0)});
  EXPECT_EQ(c.threads, 4u);
  EXPECT_EQ(c.stopped_threads, 3u);
  EXPECT_EQ(c.stops, 24u);
  EXPECT_EQ(c.stopped_ns, 5'500'000u);
  EXPECT_EQ(c.thread_ns, 4 * kS);
  EXPECT_DOUBLE_EQ(c.share, 5.5e6 / 4e9);
  EXPECT_DOUBLE_EQ(c.median_stop_ns, 100'000);  // the middle of 50 µs, 100 µs, 1 ms
  // An even count: the mean of the two middle ones.
  c = stop_cost({thread(1, kS, 500'000, 10), thread(2, kS, 1'000'000, 10)});
  EXPECT_DOUBLE_EQ(c.median_stop_ns, 75'000);
}

TEST(StopCost, ThreadsOfPartOfTheWindowCountTheirOwnTime) {
  // A thread that lived half the window adds half a window to the denominator.
  StopCost c = stop_cost({thread(1, 1000, 100, 1), thread(2, 500, 0, 0)});
  EXPECT_EQ(c.thread_ns, 1500u);
  EXPECT_DOUBLE_EQ(c.share, 100.0 / 1500);
}

TEST(StopCost, StoppedSinceBeforeTheWindowHasNoStopToDivideBy) {
  // Seeded in a tracing stop, never switched out in "t" during the window: its time counts in
  // the share, not in the per-stop median.
  StopCost c = stop_cost({thread(1, 1000, 1000, 0), thread(2, 1000, 30, 3)});
  EXPECT_EQ(c.stopped_threads, 1u);
  EXPECT_EQ(c.stopped_ns, 1030u);
  EXPECT_DOUBLE_EQ(c.median_stop_ns, 10);
}

}  // namespace
}  // namespace hearth::sched
