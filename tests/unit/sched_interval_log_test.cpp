// collectors/sched/interval_log.h: what is kept whole and how long the slots are (choose_keep),
// the compact per-thread log reads back what was added, touching equal intervals join, the time
// before whole_from is folded into slots exactly, and the writers' files.
#include "collectors/sched/interval_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <vector>

#include "tests/unit/temp_dir.h"

namespace hearth::sched::interval_log_test {

namespace si = sched_intervals;
constexpr uint64_t kSec = 1'000'000'000;

std::vector<si::Interval> read_back(const ThreadIntervals& t) {
  std::vector<si::Interval> out;
  ThreadIntervals::Cursor c;
  si::Interval r;
  while (t.next(&c, &r)) out.push_back(r);
  return out;
}

TEST(SchedIntervalLog, ChooseKeep) {
  // Not longer than the kept part: all whole.
  IntervalKeep k = choose_keep(100, 100 + 60 * kSec, 60 * kSec);
  EXPECT_EQ(k.whole_from_ns, 100u);
  EXPECT_EQ(k.window_start_ns, 100u);
  EXPECT_EQ(k.slot_ns, kSec);
  // 90.5 s, the last 60 s whole: 30 whole slots before, so 60.5 s kept whole.
  k = choose_keep(100, 100 + 90 * kSec + kSec / 2, 60 * kSec);
  EXPECT_EQ(k.slot_ns, kSec);
  EXPECT_EQ(k.whole_from_ns, 100 + 30 * kSec);
  // --intervals 0: everything in slots but the last partial slot.
  k = choose_keep(0, 10 * kSec + 5, 0);
  EXPECT_EQ(k.whole_from_ns, 10 * kSec);
  // A day: 1 s slots would be 86,340: 30 s slots (2,878).
  k = choose_keep(0, 86400 * kSec, 60 * kSec);
  EXPECT_EQ(k.slot_ns, 30 * kSec);
  EXPECT_EQ(k.whole_from_ns, 86340 * kSec / (30 * kSec) * (30 * kSec));
  EXPECT_GE(86400 * kSec - k.whole_from_ns, 60 * kSec);
  // A week: 300 s slots (2,015).
  k = choose_keep(0, 7 * 86400 * kSec, 60 * kSec);
  EXPECT_EQ(k.slot_ns, 300 * kSec);
  // Exactly 3,600 slots still take 1 s.
  k = choose_keep(0, 3660 * kSec, 60 * kSec);
  EXPECT_EQ(k.slot_ns, kSec);
}

TEST(SchedIntervalLog, ReadsBackWhatWasAdded) {
  const IntervalKeep keep{1000, 1000, kSec};
  ThreadIntervals t;
  // Gaps, CPU changes, large values, every state code and letters outside the table.
  const std::vector<si::Interval> in = {
      {0, 0, 1000, 1001, 'C', 0, -1},
      {0, 0, 1001, 5000, 'R', 0, 4194304},
      {0, 0, 5000, 5000 + (uint64_t{1} << 40), 'S', 8191, 0},
      {0, 0, 5000 + (uint64_t{1} << 40), 6000 + (uint64_t{1} << 40), 'q', -1, -1},
      {0, 0, 9000 + (uint64_t{1} << 40), 9001 + (uint64_t{1} << 40), '?', 3, 7},  // a gap
      {0, 0, 9001 + (uint64_t{1} << 40), 9002 + (uint64_t{1} << 40), 'T', 3, -1},
      {0, 0, 9002 + (uint64_t{1} << 40), 9003 + (uint64_t{1} << 40), 'D', 2, 1},
      {0, 0, 9003 + (uint64_t{1} << 40), 9004 + (uint64_t{1} << 40), 't', 2, -1},
      {0, 0, 9004 + (uint64_t{1} << 40), 9005 + (uint64_t{1} << 40), 'Z', 2, -1},
  };
  for (const si::Interval& r : in) t.add(keep, r.start_ns, r.end_ns, r.state, r.cpu, r.by);
  t.finish();
  std::vector<si::Interval> out = read_back(t);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].start_ns, in[i].start_ns) << i;
    EXPECT_EQ(out[i].end_ns, in[i].end_ns) << i;
    EXPECT_EQ(out[i].state, in[i].state) << i;
    EXPECT_EQ(out[i].cpu, in[i].cpu) << i;
    EXPECT_EQ(out[i].by, in[i].by) << i;
  }
  EXPECT_EQ(t.intervals(), in.size());
  EXPECT_EQ(t.overlaps(), 0u);
  EXPECT_TRUE(t.slots().empty());
}

TEST(SchedIntervalLog, RandomSequencesReadBackAndStaySmall) {
  std::mt19937_64 rng(29);
  const IntervalKeep keep{0, 0, kSec};
  ThreadIntervals t;
  std::vector<si::Interval> in;
  uint64_t now = 0;
  const std::string states = "CRSDtTIX?";
  for (int i = 0; i < 20000; ++i) {
    si::Interval r;
    r.start_ns = now + (rng() % 8 == 0 ? rng() % 1000 : 0);
    r.end_ns = r.start_ns + 1 + rng() % 100000;
    r.state = states[i % 2 == 0 ? 0 : 1 + rng() % (states.size() - 1)];  // never two C in a row
    r.cpu = static_cast<int>(rng() % 3) - 1;
    r.by = rng() % 4 == 0 ? static_cast<int64_t>(rng() % 5000) : -1;
    now = r.end_ns;
    in.push_back(r);
    t.add(keep, r.start_ns, r.end_ns, r.state, r.cpu, r.by);
  }
  t.finish();
  std::vector<si::Interval> out = read_back(t);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(out[i].start_ns, in[i].start_ns) << i;
    ASSERT_EQ(out[i].end_ns, in[i].end_ns) << i;
    ASSERT_EQ(out[i].state, in[i].state) << i;
    ASSERT_EQ(out[i].cpu, in[i].cpu) << i;
    ASSERT_EQ(out[i].by, in[i].by) << i;
  }
  // Durations below 2^21 ns, a few gaps, cpus and wakers: well under 8 bytes an interval.
  EXPECT_LT(t.bytes(), in.size() * 8);
}

TEST(SchedIntervalLog, TouchingEqualIntervalsJoin) {
  const IntervalKeep keep{0, 0, kSec};
  ThreadIntervals t;
  t.add(keep, 0, 10, 'C', 1, -1);
  t.add(keep, 10, 20, 'C', 1, -1);  // joins
  t.add(keep, 20, 30, 'C', 0, -1);  // another CPU
  t.add(keep, 30, 40, 'R', 0, 5);
  t.add(keep, 40, 50, 'R', 0, -1);  // another by
  t.add(keep, 50, 50, 'S', 0, -1);  // empty: ignored
  t.add(keep, 60, 70, 'R', 0, -1);  // a gap
  t.finish();
  std::vector<si::Interval> out = read_back(t);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].end_ns, 20u);
  EXPECT_EQ(out[1].cpu, 0);
  EXPECT_EQ(out[3].by, -1);
  EXPECT_EQ(out[4].start_ns, 60u);
}

TEST(SchedIntervalLog, OverlapsAreClippedAndCounted) {
  const IntervalKeep keep{0, 0, kSec};
  ThreadIntervals t;
  t.add(keep, 0, 100, 'C', 0, -1);
  t.add(keep, 50, 150, 'S', 0, -1);
  t.finish();
  std::vector<si::Interval> out = read_back(t);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].start_ns, 100u);
  EXPECT_EQ(t.overlaps(), 1u);
}

TEST(SchedIntervalLog, TimeBeforeWholeFromGoesToSlots) {
  // Window from 1000; slots of 100; whole from 1300.
  const IntervalKeep keep{1000, 1300, 100};
  ThreadIntervals t;
  t.add(keep, 1000, 1050, 'C', 0, -1);
  t.switch_out(keep, 1050);
  t.add(keep, 1050, 1250, 'S', 0, 9);  // spans slots 0, 1, 2
  t.add(keep, 1250, 1280, 'R', 1, -1);
  t.add(keep, 1280, 1400, 'C', 1, -1);  // crosses whole_from: 20 in slot 2, 100 kept
  t.switch_out(keep, 1400);             // after whole_from: in no slot
  t.add(keep, 1400, 1500, 'D', 1, -1);
  t.finish();
  const auto& slots = t.slots();
  ASSERT_EQ(slots.size(), 3u);
  auto ns = [&](size_t i, si::StateClass c) { return slots[i].ns[static_cast<size_t>(c)]; };
  EXPECT_EQ(slots[0].index, 0u);
  EXPECT_EQ(ns(0, si::StateClass::kOnCpu), 50u);
  EXPECT_EQ(ns(0, si::StateClass::kSleeping), 50u);
  EXPECT_EQ(slots[0].switches, 1u);
  EXPECT_EQ(ns(1, si::StateClass::kSleeping), 100u);
  EXPECT_EQ(ns(2, si::StateClass::kSleeping), 50u);
  EXPECT_EQ(ns(2, si::StateClass::kRunnable), 30u);
  EXPECT_EQ(ns(2, si::StateClass::kOnCpu), 20u);
  EXPECT_EQ(slots[2].switches, 0u);
  std::vector<si::Interval> out = read_back(t);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].start_ns, 1300u);
  EXPECT_EQ(out[0].end_ns, 1400u);
  EXPECT_EQ(out[0].state, 'C');
  EXPECT_EQ(out[1].state, 'D');
}

TEST(SchedIntervalLog, FilesOfAStore) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  sched_tsv::SchedHeader h;
  h.window_start_ns = 1000;
  h.window_end_ns = 1500;
  IntervalStore store;
  store.keep = {1000, 1300, 100};
  for (int64_t tid : {5, 9}) {
    ThreadLog& t = store.threads.emplace_back();
    t.tid = tid;
    t.pid = 5;
    t.log.add(store.keep, 1000, 1350, 'C', 0, -1);
    t.log.add(store.keep, 1350, 1500, 'S', 0, tid == 5 ? 9 : -1);
    t.log.finish();
  }
  // A slots file from an earlier recording: replaced here, removed below.
  Result<IntervalFiles> f = write_interval_files(dir.path(), h, store);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->intervals, 4u);
  EXPECT_EQ(f->slots, 6u);
  EXPECT_GT(f->bytes, 0u);
  Result<si::IntervalsFile> iv = si::read_intervals(dir / "sched.intervals.tsv");
  ASSERT_TRUE(iv) << iv.error().message;
  ASSERT_EQ(iv->intervals.size(), 4u);
  EXPECT_EQ(iv->intervals[1].by, 9);
  EXPECT_EQ(iv->intervals[2].tid, 9);
  EXPECT_EQ(iv->header.kept.whole_from_ns, 1300u);
  Result<si::IntervalsFile> sl = si::read_intervals(dir / "sched.slots.tsv");
  ASSERT_TRUE(sl) << sl.error().message;
  ASSERT_EQ(sl->slots.size(), 6u);
  EXPECT_EQ(sl->slots[5].tid, 9);
  EXPECT_EQ(sl->slots[5].slot_start_ns, 1200u);
  EXPECT_EQ(sl->slots[5].on_cpu_ns, 100u);

  IntervalStore whole;
  whole.keep = {1000, 1000, 100};
  f = write_interval_files(dir.path(), h, whole);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_NE(::access((dir / "sched.intervals.tsv").c_str(), F_OK), -1);
  EXPECT_EQ(::access((dir / "sched.slots.tsv").c_str(), F_OK), -1);  // not this recording's
}

// Slots from before the window (hearth watch's /proc ring): first in each thread's rows, merged
// with the tracer's by tid (a thread of the ring's only, 7, among them), both files' window
// reaching back to them and marked untraced until the tracer's start.
TEST(SchedIntervalLog, FilesWithSlotsFromBeforeTheWindow) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  sched_tsv::SchedHeader h;
  h.window_start_ns = 1000;
  h.window_end_ns = 1500;
  IntervalStore store;
  store.keep = {1000, 1300, 100};
  for (int64_t tid : {5, 9}) {
    ThreadLog& t = store.threads.emplace_back();
    t.tid = tid;
    t.pid = 5;
    t.log.add(store.keep, 1000, 1500, 'C', 0, -1);
    t.log.finish();
  }
  si::UntracedSlots before;
  before.mark = {1000, 100, "proc"};
  for (int64_t tid : {5, 7, 9}) {
    for (uint64_t start : {800u, 900u}) {
      si::Slot s;
      s.tid = tid;
      s.pid = 5;
      s.slot_start_ns = start;
      s.sleeping_ns = 100;
      before.slots.push_back(s);
    }
  }
  Result<IntervalFiles> f = write_interval_files(dir.path(), h, store, &before);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->slots, 6u + 6u);
  for (const char* name : {"sched.intervals.tsv", "sched.slots.tsv"}) {
    Result<si::IntervalsFile> file = si::read_intervals(dir / name);
    ASSERT_TRUE(file) << file.error().message;
    EXPECT_EQ(file->header.window_start_ns, 800u) << name;
    EXPECT_EQ(file->header.window_end_ns, 1500u) << name;
    EXPECT_EQ(file->header.kept.whole_from_ns, 1300u) << name;
    EXPECT_EQ(file->header.untraced.until_ns, 1000u) << name;
    EXPECT_EQ(file->header.untraced.source, "proc") << name;
  }
  Result<si::IntervalsFile> sl = si::read_intervals(dir / "sched.slots.tsv");
  ASSERT_TRUE(sl);
  std::vector<std::pair<int64_t, uint64_t>> order;
  for (const si::Slot& s : sl->slots) order.emplace_back(s.tid, s.slot_start_ns);
  EXPECT_EQ(order, (std::vector<std::pair<int64_t, uint64_t>>{{5, 800},
                                                              {5, 900},
                                                              {5, 1000},
                                                              {5, 1100},
                                                              {5, 1200},
                                                              {7, 800},
                                                              {7, 900},
                                                              {9, 800},
                                                              {9, 900},
                                                              {9, 1000},
                                                              {9, 1100},
                                                              {9, 1200}}));
  EXPECT_EQ(sl->slots[0].sleeping_ns, 100u);
  EXPECT_EQ(sl->slots[2].on_cpu_ns, 100u);

  // A window kept whole: the slots file holds the ones from before only, whole from the start.
  IntervalStore whole;
  whole.keep = {1000, 1000, 100};
  f = write_interval_files(dir.path(), h, whole, &before);
  ASSERT_TRUE(f) << f.error().message;
  sl = si::read_intervals(dir / "sched.slots.tsv");
  ASSERT_TRUE(sl) << sl.error().message;
  EXPECT_EQ(sl->slots.size(), 6u);
  EXPECT_EQ(sl->header.kept.whole_from_ns, 1000u);
  EXPECT_EQ(sl->header.untraced.until_ns, 1000u);
}

}  // namespace hearth::sched::interval_log_test
