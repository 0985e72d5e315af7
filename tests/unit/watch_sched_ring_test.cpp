// watch/sched_ring.h: the ring of /proc scheduler shares `hearth watch` keeps for the time before
// a trigger: its span bounded by forget_before, and its reads turned into slots on the tracer's
// grid (times, partial cover, switches, order, the untraced mark), which the slots file reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/sched_intervals.h"
#include "watch/sched_ring.h"

namespace hearth::watch {
namespace {

constexpr int64_t kSec = 1'000'000'000;

ThreadShares ring_thread(pid_t tid, double running, double runnable, double sleeping,
                         double blocked, double span_s = 1, uint64_t slices = 0) {
  ThreadShares t;
  t.tid = tid;
  t.pid = 100;
  t.name = "worker";
  t.running = running;
  t.runnable = runnable;
  t.sleeping = sleeping;
  t.blocked = blocked;
  t.span_s = span_s;
  t.slices = slices;
  return t;
}

// A read at T_NS covering the second before it: thread 101 asleep, 102 half running, half
// queued (10 slices), 103 blocked.
ProcSample ring_read(int64_t t_ns) {
  ProcSample s;
  s.t_ns = t_ns;
  s.first = false;
  s.interval_s = 1;
  s.threads = {ring_thread(101, 0, 0, 1, 0), ring_thread(102, 0.5, 0.5, 0, 0, 1, 10),
               ring_thread(103, 0, 0, 0, 1)};
  return s;
}

uint64_t slot_sum(const sched_intervals::Slot& s) {
  return s.on_cpu_ns + s.runnable_ns + s.sleeping_ns + s.blocked_ns + s.stopped_ns + s.other_ns;
}

TEST(SchedRing, ForgetBeforeBoundsItsSpan) {
  SchedRing ring;
  ProcSample first = ring_read(kSec);
  first.first = true;  // the first read has no shares: nothing kept
  ring.add(first);
  EXPECT_EQ(ring.reads(), 0u);
  for (int64_t k = 2; k <= 100; ++k) {
    ring.add(ring_read(k * kSec));
    ring.forget_before(k * kSec - 10 * kSec);  // a 10 s ring
  }
  EXPECT_EQ(ring.reads(), 10u);
  EXPECT_EQ(ring.span_ns(), 10 * kSec);
  EXPECT_EQ(ring.rows(), 30u);
  EXPECT_GT(ring.bytes(), 30 * 20u);
  EXPECT_LT(ring.bytes(), 30 * 20u + 10 * 200u);
  ring.add(ring_read(50 * kSec));  // back in time: not taken
  EXPECT_EQ(ring.reads(), 10u);
  ring.forget_before(200 * kSec);
  EXPECT_EQ(ring.reads(), 0u);
  EXPECT_EQ(ring.span_ns(), 0);
}

TEST(SchedRing, SlotsOnTheTracersGridBeforeIt) {
  SchedRing ring;
  // Reads 0.3 s off the grid: [0.3, 1.3), [1.3, 2.3), … [9.3, 10.3).
  for (int64_t k = 1; k <= 10; ++k) ring.add(ring_read(k * kSec + 3 * kSec / 10));
  // The tracer's window starts at 10 s; the ring's span asked: from 4.5 s.
  const sched_intervals::UntracedSlots u =
      ring.untraced_slots(4 * kSec + kSec / 2, 10 * kSec, kSec);
  EXPECT_EQ(u.mark.until_ns, 10u * kSec);
  EXPECT_EQ(u.mark.resolution_ns, 1u * kSec);
  EXPECT_EQ(u.mark.source, "proc");
  // Slots 4..9 s (4.5 rounded down onto the grid), three threads, by tid then time.
  ASSERT_EQ(u.slots.size(), 18u);
  for (size_t i = 0; i < u.slots.size(); ++i) {
    const sched_intervals::Slot& s = u.slots[i];
    EXPECT_EQ(s.tid, 101 + static_cast<int64_t>(i / 6)) << i;
    EXPECT_EQ(s.pid, 100);
    EXPECT_EQ(s.slot_start_ns, (4 + i % 6) * kSec) << i;
    // Each slot wholly covered (by two reads): its times sum to the slot, give or take the
    // shares' rounding (1/65535 of the overlap each).
    EXPECT_LE(slot_sum(s), 1u * kSec);
    EXPECT_GE(slot_sum(s), 1u * kSec - 100'000u);
  }
  EXPECT_NEAR(static_cast<double>(u.slots[0].sleeping_ns), 1e9, 1e5);
  EXPECT_EQ(u.slots[0].on_cpu_ns + u.slots[0].runnable_ns + u.slots[0].blocked_ns, 0u);
  EXPECT_NEAR(static_cast<double>(u.slots[6].on_cpu_ns), 0.5e9, 1e5);
  EXPECT_NEAR(static_cast<double>(u.slots[6].runnable_ns), 0.5e9, 1e5);
  EXPECT_EQ(u.slots[6].switches, 10u);  // 7 of one read's 10 slices and 3 of the next's
  EXPECT_NEAR(static_cast<double>(u.slots[12].blocked_ns), 1e9, 1e5);
  EXPECT_EQ(before_trigger_json(u)["span_s"], 6.0);
  EXPECT_EQ(before_trigger_json(u)["threads"], 3);
  EXPECT_EQ(before_trigger_json(u)["resolution_s"], 1.0);
}

TEST(SchedRing, APartlyCoveredSlotSumsToLessAndAnUncoveredOneIsLeftOut) {
  SchedRing ring;
  for (int64_t k = 1; k <= 3; ++k) ring.add(ring_read(k * kSec));  // [0, 3 s)
  // The tracer starts at 5.5 s: the grid 0.5, 1.5, … 4.5 (none before 0); [2.5, 3.5) is covered
  // for its first half only, [3.5, 5.5) not at all.
  const sched_intervals::UntracedSlots u = ring.untraced_slots(0, 5 * kSec + kSec / 2, kSec);
  ASSERT_EQ(u.slots.size(), 9u);
  EXPECT_EQ(u.slots[0].slot_start_ns, 1u * kSec / 2);
  EXPECT_EQ(u.slots[1].slot_start_ns, 3u * kSec / 2);
  EXPECT_EQ(u.slots[2].slot_start_ns, 5u * kSec / 2);
  EXPECT_NEAR(static_cast<double>(slot_sum(u.slots[1])), 1e9, 1e5);
  EXPECT_NEAR(static_cast<double>(slot_sum(u.slots[2])), 0.5e9, 1e5);
  // Nothing asked for, or nothing read: no slots.
  EXPECT_TRUE(ring.untraced_slots(5 * kSec, 5 * kSec, kSec).slots.empty());
  EXPECT_TRUE(SchedRing().untraced_slots(0, 5 * kSec, kSec).slots.empty());
}

// The slots, written as sched.slots.tsv with their mark, read back as the timeline reads them.
TEST(SchedRing, ItsSlotsAreAValidSlotsFile) {
  SchedRing ring;
  for (int64_t k = 1; k <= 5; ++k) ring.add(ring_read(k * kSec + kSec / 4));
  const uint64_t until = 5 * kSec + kSec / 2;
  sched_intervals::UntracedSlots u = ring.untraced_slots(kSec, until, kSec);
  ASSERT_FALSE(u.slots.empty());
  sched_tsv::SchedHeader h;
  h.window_start_ns = u.slots.front().slot_start_ns;
  h.window_end_ns = until + 2 * kSec;
  std::string text =
      sched_intervals::format_header(sched_intervals::FileKind::kSlots, h, {until, kSec}, u.mark);
  for (const sched_intervals::Slot& s : u.slots) sched_intervals::append_slot(&text, s);
  sched_intervals::append_end(&text, u.slots.size());
  auto f = sched_intervals::parse_intervals(text, "sched.slots.tsv");
  ASSERT_TRUE(f) << f.error().message << "\n" << text;
  EXPECT_EQ(f->slots.size(), u.slots.size());
  EXPECT_EQ(f->header.untraced.source, "proc");
}

}  // namespace
}  // namespace hearth::watch
