// The intervals SchedAnalysis emits: per thread they tile its life within the window, and summed
// per state (with the slots before whole_from) they equal its sched.states row exactly; the
// preemptor and the waker are filled in; slots take the time before the kept part. Checked on
// hand-written streams and on random ones (inconsistent on purpose: lost switches, exits, tid
// reuse, forks, migrations, wakeups from anywhere).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "collectors/sched/analysis.h"

namespace hearth::sched::analysis_intervals_test {

namespace si = sched_intervals;

constexpr uint64_t kT0 = 1'000'000'000;  // window start, ns
constexpr pid_t kProc = 100;

SwitchEvent switch_event(uint64_t ts, int cpu, pid_t prev, const char* state, pid_t next,
                         pid_t prev_tgid = kProc, pid_t next_tgid = kProc) {
  SwitchEvent e;
  e.ctx.ts_ns = ts;
  e.ctx.cpu = cpu;
  e.ctx.common_pid = prev;
  e.prev_pid = prev;
  e.prev_tgid = prev == 0 ? 0 : prev_tgid;
  e.prev_state = state;
  e.next_pid = next;
  e.next_tgid = next == 0 ? 0 : next_tgid;
  return e;
}

WakingEvent wakeup_by(uint64_t ts, pid_t pid, pid_t waker, int cpu = 0, bool enqueued = false,
                      int target_cpu = 0) {
  WakingEvent e;
  e.ctx.ts_ns = ts;
  e.ctx.cpu = cpu;
  e.ctx.common_pid = waker;
  e.enqueued = enqueued;
  e.pid = pid;
  e.tgid = kProc;
  e.target_cpu = target_cpu;
  return e;
}

ThreadSeed seeded(pid_t tid, char state, int cpu = 0) {
  return ThreadSeed{tid, kProc, "t", state, cpu};
}

struct Rows {
  std::vector<si::Interval> intervals;
  std::vector<si::Slot> slots;
};

Rows rows_of(const SchedModel& m) {
  Rows r;
  auto next = m.intervals->interval_rows();
  si::Interval i;
  while (next(&i)) r.intervals.push_back(i);
  auto next_slot = m.intervals->slot_rows();
  si::Slot s;
  while (next_slot(&s)) r.slots.push_back(s);
  return r;
}

std::vector<si::Interval> of_tid(const Rows& r, int64_t tid) {
  std::vector<si::Interval> out;
  for (const si::Interval& i : r.intervals)
    if (i.tid == tid) out.push_back(i);
  return out;
}

// The invariants every model's intervals keep; TILED: also no gaps from each thread's first
// interval to the window end (streams without exits). Returns the number of problems.
int check_invariants(const SchedModel& m, uint64_t start, uint64_t end, bool tiled) {
  int problems = 0;
  auto bad = [&](const std::string& what) {
    ADD_FAILURE() << what;
    ++problems;
  };
  const Rows r = rows_of(m);
  if (m.intervals->overlaps() != 0) bad("overlaps " + std::to_string(m.intervals->overlaps()));
  const uint64_t whole_from = m.intervals->keep.whole_from_ns;
  std::map<int64_t, std::array<uint64_t, 6>> sums;
  std::map<int64_t, uint64_t> last_end;
  for (size_t k = 0; k < r.intervals.size(); ++k) {
    const si::Interval& i = r.intervals[k];
    const std::string at = "tid " + std::to_string(i.tid) + " [" + std::to_string(i.start_ns) +
                           ", " + std::to_string(i.end_ns) + ") ";
    if (i.start_ns >= i.end_ns) bad(at + "empty");
    if (i.start_ns < whole_from || i.end_ns > end) bad(at + "outside the kept window");
    if (k > 0 && (r.intervals[k - 1].tid > i.tid ||
                  (r.intervals[k - 1].tid == i.tid && r.intervals[k - 1].end_ns > i.start_ns)))
      bad(at + "out of order or overlapping");
    if (tiled && k > 0 && r.intervals[k - 1].tid == i.tid &&
        r.intervals[k - 1].end_ns != i.start_ns)
      bad(at + "leaves a gap");
    sums[i.tid][static_cast<size_t>(si::state_class(i.state))] += i.end_ns - i.start_ns;
    last_end[i.tid] = i.end_ns;
  }
  for (const si::Slot& s : r.slots) {
    if (s.slot_start_ns < start || s.slot_start_ns >= whole_from) bad("slot outside");
    auto& a = sums[s.tid];
    a[0] += s.on_cpu_ns;
    a[1] += s.runnable_ns;
    a[2] += s.sleeping_ns;
    a[3] += s.blocked_ns;
    a[4] += s.stopped_ns;
    a[5] += s.other_ns;
  }
  for (const ThreadStates& row : m.states) {
    const auto& a = sums[row.tid];
    const uint64_t want[6] = {row.on_cpu_ns,  row.runnable_ns, row.sleeping_ns,
                              row.blocked_ns, row.stopped_ns,  row.other_ns};
    for (size_t c = 0; c < 6; ++c) {
      if (a[c] != want[c]) {
        bad("tid " + std::to_string(row.tid) + " state class " + std::to_string(c) +
            ": intervals " + std::to_string(a[c]) + ", states " + std::to_string(want[c]));
      }
    }
    if (tiled && last_end.count(row.tid) && last_end[row.tid] != end)
      bad("tid " + std::to_string(row.tid) + " ends before the window");
  }
  // Only the states' threads.
  for (const auto& [tid, a] : sums) {
    bool found = false;
    for (const ThreadStates& row : m.states) found = found || row.tid == tid;
    if (!found) bad("intervals of tid " + std::to_string(tid) + ", which has no states row");
  }
  return problems;
}

TEST(SchedAnalysisIntervals, PreemptorWakerAndCpus) {
  SchedAnalysis a(AnalysisOptions{kT0, {kProc}, -1});
  a.seed(seeded(1, 'R', 0));
  a.seed(seeded(2, 'S', 1));
  a.add(switch_event(kT0 + 100, 0, 1, "R", 3, kProc, 900));  // 3 (another process) preempts 1
  a.add(switch_event(kT0 + 300, 0, 3, "S", 1, 900, kProc));  // 1 runs again
  a.add(wakeup_by(kT0 + 400, 2, 1));                         // 1 wakes 2
  a.add(switch_event(kT0 + 450, 1, 0, "R", 2));              // 2 runs on CPU 1
  a.add(switch_event(kT0 + 600, 1, 2, "D", 0));              // 2 blocks
  a.add(wakeup_by(kT0 + 700, 2, 0, 1, true, 1));             // an interrupt on idle CPU 1 wakes it
  const uint64_t end = kT0 + 1000;
  SchedModel m = a.finish(end);
  EXPECT_EQ(check_invariants(m, kT0, end, true), 0);
  const Rows r = rows_of(m);
  std::vector<si::Interval> t1 = of_tid(r, 1);
  ASSERT_EQ(t1.size(), 3u);
  EXPECT_EQ(t1[0].state, 'C');
  EXPECT_EQ(t1[0].start_ns, kT0);
  EXPECT_EQ(t1[1].state, 'R');
  EXPECT_EQ(t1[1].by, 3);  // the preemptor
  EXPECT_EQ(t1[1].cpu, 0);
  EXPECT_EQ(t1[1].end_ns, kT0 + 300);
  EXPECT_EQ(t1[2].state, 'C');
  EXPECT_EQ(t1[2].end_ns, end);
  std::vector<si::Interval> t2 = of_tid(r, 2);
  ASSERT_EQ(t2.size(), 5u);
  EXPECT_EQ(t2[0].state, 'S');  // seeded asleep
  EXPECT_EQ(t2[0].by, 1);       // woken by 1
  EXPECT_EQ(t2[0].cpu, 1);      // where it last ran (proc)
  EXPECT_EQ(t2[1].state, 'R');  // woken, waiting for CPU 1
  EXPECT_EQ(t2[1].start_ns, kT0 + 400);
  EXPECT_EQ(t2[1].cpu, 1);
  EXPECT_EQ(t2[1].by, -1);
  EXPECT_EQ(t2[2].state, 'C');
  EXPECT_EQ(t2[3].state, 'D');
  EXPECT_EQ(t2[3].by, 0);  // the idle task was current
  EXPECT_EQ(t2[4].state, 'R');
  EXPECT_EQ(t2[4].cpu, 1);  // the run queue its wakeup put it on
  EXPECT_EQ(t2[4].end_ns, end);
  // 3 belongs to another process: no intervals.
  EXPECT_TRUE(of_tid(r, 3).empty());
}

TEST(SchedAnalysisIntervals, SeededThreadsWithoutEvents) {
  SchedAnalysis a(AnalysisOptions{kT0, {kProc}, -1});
  a.seed(seeded(7, 'R', 1));  // ran alone all window
  a.seed(seeded(8, 'S', 0));
  a.seed(seeded(9, 't', 0));
  SchedModel m = a.finish(kT0 + 5000);
  EXPECT_EQ(check_invariants(m, kT0, kT0 + 5000, true), 0);
  const Rows r = rows_of(m);
  ASSERT_EQ(r.intervals.size(), 3u);
  EXPECT_EQ(r.intervals[0].state, 'C');
  EXPECT_EQ(r.intervals[0].cpu, 1);
  EXPECT_EQ(r.intervals[1].state, 'S');
  EXPECT_EQ(r.intervals[2].state, 't');
}

TEST(SchedAnalysisIntervals, ExitsForksAndInferredSwitchIns) {
  SchedAnalysis a(AnalysisOptions{kT0, {kProc}, -1});
  a.seed(seeded(1, 'R', 0));
  ForkEvent f;
  f.ctx.ts_ns = kT0 + 100;
  f.ctx.cpu = 0;
  f.parent_pid = 1;
  f.parent_tgid = kProc;
  f.child_pid = 5;
  f.child_tgid = kProc;
  f.thread = true;
  a.add(f);
  a.add(switch_event(kT0 + 200, 0, 1, "S", 5));
  a.add(switch_event(kT0 + 300, 0, 5, "X", 0));  // 5 exits
  // 1's switch-in on CPU 1 was not recorded: placed at its wakeup.
  a.add(wakeup_by(kT0 + 400, 1, 0, 1));
  a.add(switch_event(kT0 + 500, 1, 1, "S", 0));
  SchedModel m = a.finish(kT0 + 1000);
  EXPECT_EQ(check_invariants(m, kT0, kT0 + 1000, false), 0);
  EXPECT_EQ(m.inferred_switch_ins, 1u);
  const Rows r = rows_of(m);
  std::vector<si::Interval> t5 = of_tid(r, 5);
  ASSERT_EQ(t5.size(), 2u);
  EXPECT_EQ(t5[0].state, 'R');  // new, waiting for its first run
  EXPECT_EQ(t5[0].start_ns, kT0 + 100);
  EXPECT_EQ(t5[1].state, 'C');
  EXPECT_EQ(t5[1].end_ns, kT0 + 300);  // its life ends at its last switch-out ("X")
  std::vector<si::Interval> t1 = of_tid(r, 1);
  ASSERT_GE(t1.size(), 4u);
  EXPECT_EQ(t1[1].state, 'S');
  EXPECT_EQ(t1[1].end_ns, kT0 + 400);
  EXPECT_EQ(t1[2].state, 'C');  // from the inferred switch-in
  EXPECT_EQ(t1[2].cpu, 1);
}

// --intervals shorter than the window: the time before is in slots, the sums stay exact.
TEST(SchedAnalysisIntervals, SlotsBeforeTheKeptPart) {
  AnalysisOptions o{kT0, {kProc}, -1};
  o.intervals_whole_from_ns = kT0 + 3000;
  o.slot_ns = 1000;
  SchedAnalysis a(o);
  a.seed(seeded(1, 'R', 0));
  a.seed(seeded(2, 'R', 0));
  uint64_t t = kT0;
  for (int i = 0; i < 40; ++i) {  // two threads taking turns every 125 ns
    t += 125;
    a.add(switch_event(t, 0, i % 2 == 0 ? 1 : 2, "R", i % 2 == 0 ? 2 : 1));
  }
  const uint64_t end = kT0 + 5500;
  SchedModel m = a.finish(end);
  EXPECT_EQ(check_invariants(m, kT0, end, true), 0);
  EXPECT_EQ(m.intervals->keep.whole_from_ns, kT0 + 3000);
  const Rows r = rows_of(m);
  ASSERT_EQ(r.slots.size(), 6u);  // 3 slots per thread
  uint64_t switches = 0;
  for (const si::Slot& s : r.slots) {
    EXPECT_EQ(s.on_cpu_ns + s.runnable_ns, 1000u);
    switches += s.switches;
  }
  EXPECT_EQ(switches, 23u);  // switch-outs at 125 … 2875, before whole_from
  for (const si::Interval& i : r.intervals) EXPECT_GE(i.start_ns, kT0 + 3000);
  // A whole_from that is not on a slot boundary is moved back to one.
  AnalysisOptions o2 = o;
  o2.intervals_whole_from_ns = kT0 + 3500;
  SchedAnalysis b(o2);
  EXPECT_EQ(b.finish(end).intervals->keep.whole_from_ns, kT0 + 3000);
}

// Random streams, consistent or not: the invariants hold whatever the kernel hands over.
TEST(SchedAnalysisIntervals, RandomStreamsKeepTheInvariants) {
  const char* states[] = {"R", "R+", "S", "D", "t", "T", "I", "P", "", "C", "x", "X", "Z"};
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const bool exits = seed % 3 != 0;  // with X/Z switch-outs (and so tid reuse)
    const bool all = seed % 4 == 0;    // -a: every task reported
    AnalysisOptions o{kT0, all ? std::vector<pid_t>{} : std::vector<pid_t>{kProc}, -1};
    o.inherit = seed % 5 == 0;
    if (seed % 2 == 0) {
      o.intervals_whole_from_ns = kT0 + 20'000;
      o.slot_ns = 1000 + seed;
    }
    SchedAnalysis a(o);
    for (pid_t tid = 1; tid <= 4; ++tid)
      a.seed(seeded(tid, "RSDt"[rng() % 4], static_cast<int>(rng() % 3)));
    uint64_t ts = kT0;
    auto tid_pick = [&] { return static_cast<pid_t>(rng() % 9); };  // 0: idle
    auto tgid_of = [&](pid_t tid) { return tid >= 7 ? pid_t{900} : kProc; };
    for (int n = 0; n < 600; ++n) {
      ts += rng() % 4 == 0 ? 0 : rng() % 200;
      uint64_t at = rng() % 50 == 0 && ts > kT0 + 10 ? ts - 10 : ts;  // an earlier one: clamped
      int cpu = static_cast<int>(rng() % 3);
      switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
          pid_t prev = tid_pick(), next = tid_pick();
          const char* st = states[rng() % (exits ? 13 : 11)];
          a.add(switch_event(at, cpu, prev, st, next, tgid_of(prev), tgid_of(next)));
          break;
        }
        case 3: {
          WakingEvent w = wakeup_by(at, 1 + tid_pick() % 8, tid_pick(), cpu, rng() % 2 == 0,
                                    static_cast<int>(rng() % 3));
          w.tgid = tgid_of(w.pid);
          a.add(w);
          break;
        }
        case 4: {
          MigrateEvent mg;
          mg.ctx.ts_ns = at;
          mg.ctx.cpu = cpu;
          mg.pid = 1 + tid_pick() % 8;
          mg.tgid = tgid_of(mg.pid);
          a.add(mg);
          break;
        }
        default: {
          ForkEvent f;
          f.ctx.ts_ns = at;
          f.ctx.cpu = cpu;
          f.parent_pid = 1 + tid_pick() % 8;
          f.parent_tgid = tgid_of(f.parent_pid);
          f.child_pid = 1 + tid_pick() % 8;
          f.child_tgid = tgid_of(f.child_pid);
          f.thread = true;
          a.add(f);
          break;
        }
      }
    }
    const uint64_t end = ts + rng() % 500;
    SchedModel m = a.finish(end);
    ASSERT_EQ(check_invariants(m, kT0, end, false), 0) << "seed " << seed;
    // Some time must have gone into intervals (and slots where asked).
    EXPECT_GT(m.intervals->intervals(), 0u) << seed;
    if (seed % 2 == 0) {
      EXPECT_GT(m.intervals->slots(), 0u) << seed;
    }
  }
}

}  // namespace hearth::sched::analysis_intervals_test
