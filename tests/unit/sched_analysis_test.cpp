// SchedAnalysis on synthetic event streams: window edges, state classes, preemptors, tenancy,
// wakeup latency, threads appearing mid-window, the --cpu view.
#include "collectors/sched/analysis.h"

#include <gtest/gtest.h>

namespace hearth::sched {
namespace {

constexpr uint64_t kStart = 1'000'000'000;  // ns
constexpr uint64_t kEnd = 2'000'000'000;
constexpr pid_t kApp = 100;  // target process

// "t" + tid, built so that g++ 12's -Wrestrict false positive on operator+ stays quiet.
std::string tname(pid_t tid) {
  std::string s = "t";
  s += std::to_string(tid);
  return s;
}

std::string idle_name(int cpu) {
  std::string s = "swapper/";
  s += std::to_string(cpu);
  return s;
}

SwitchEvent sw(uint64_t ts, int cpu, pid_t prev, const char* state, pid_t next,
               pid_t prev_tgid = kApp, pid_t next_tgid = kApp) {
  SwitchEvent e;
  e.ctx.ts_ns = ts;
  e.ctx.cpu = cpu;
  e.ctx.common_pid = prev;
  e.prev_pid = prev;
  e.prev_tgid = prev == 0 ? 0 : prev_tgid;
  e.prev_comm = prev == 0 ? idle_name(cpu) : tname(prev);
  e.prev_state = state;
  e.next_pid = next;
  e.next_tgid = next == 0 ? 0 : next_tgid;
  e.next_comm = next == 0 ? idle_name(cpu) : tname(next);
  return e;
}

WakingEvent waking(uint64_t ts, pid_t pid) {
  WakingEvent e;
  e.ctx.ts_ns = ts;
  e.pid = pid;
  e.tgid = kApp;
  e.comm = tname(pid);
  return e;
}

// A new thread of kApp, as the recorder annotates it.
ForkEvent fork_of(uint64_t ts, int cpu, pid_t parent, pid_t child) {
  ForkEvent e;
  e.ctx.ts_ns = ts;
  e.ctx.cpu = cpu;
  e.ctx.common_pid = parent;
  e.parent_pid = parent;
  e.parent_tgid = kApp;
  e.parent_comm = tname(parent);
  e.child_pid = child;
  e.child_tgid = kApp;
  e.child_comm = tname(child);
  e.thread = true;
  return e;
}

// A new process CHILD created by thread PARENT of process PARENT_TGID.
ForkEvent process_fork(uint64_t ts, int cpu, pid_t parent, pid_t parent_tgid, pid_t child) {
  ForkEvent e = fork_of(ts, cpu, parent, child);
  e.parent_tgid = parent_tgid;
  e.child_tgid = child;
  e.thread = false;
  return e;
}

ThreadSeed seed(pid_t tid, char state, int cpu = 0) {
  return ThreadSeed{tid, kApp, tname(tid), state, cpu};
}

SchedAnalysis make(std::vector<pid_t> targets = {kApp}, int cpu = -1) {
  return SchedAnalysis(AnalysisOptions{kStart, std::move(targets), cpu});
}

const ThreadStates* row(const SchedModel& m, pid_t tid) {
  for (const auto& s : m.states)
    if (s.tid == tid) return &s;
  return nullptr;
}

uint64_t total(const ThreadStates& s) {
  return s.on_cpu_ns + s.runnable_ns + s.sleeping_ns + s.blocked_ns + s.other_ns + s.stopped_ns;
}

constexpr OffState R = OffState::kRunnable, S = OffState::kSleeping, D = OffState::kBlocked,
                   O = OffState::kOther, T = OffState::kStopped;

TEST(SchedAnalysis, ClassifiesKernelStateLetters) {
  EXPECT_EQ(classify_state("R"), OffState::kRunnable);
  EXPECT_EQ(classify_state("R+"), OffState::kRunnable);
  EXPECT_EQ(classify_state("S"), OffState::kSleeping);
  EXPECT_EQ(classify_state("D"), OffState::kBlocked);
  EXPECT_EQ(classify_state("D|K"), OffState::kBlocked);
  EXPECT_EQ(classify_state("I"), OffState::kOther);
  EXPECT_EQ(classify_state("T"), OffState::kOther);    // job-control stop (SIGSTOP), no tracer
  EXPECT_EQ(classify_state("t"), OffState::kStopped);  // ptrace stop (__TASK_TRACED)
  EXPECT_EQ(classify_state("X"), OffState::kOther);
  EXPECT_EQ(classify_state("P"), OffState::kOther);
  EXPECT_EQ(classify_state(""), OffState::kOther);
  // The indexes of the analysis's per-thread arrays: stopped came last (states version 2).
  EXPECT_EQ(static_cast<int>(OffState::kStopped), kOffStates - 1);
}

// A tracer's stops (prev_state "t") are their own state, apart from other ("T", "I"); a thread
// seeded in proc(5)'s tracing stop 't' was stopped since the window start.
TEST(SchedAnalysis, TracedStopsAreStoppedTime) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.seed(seed(2, 't', 1));
  uint64_t t = kStart;
  a.add(sw(t + 100, 0, 1, "t", 0));  // 100 on, then stopped by a tracer
  a.add(sw(t + 150, 0, 0, "R", 1));  // 50 stopped
  a.add(sw(t + 300, 0, 1, "t", 0));  // 150 on
  a.add(sw(t + 330, 0, 0, "R", 1));  // 30 stopped
  a.add(sw(t + 400, 0, 1, "T", 0));  // 70 on, then a job-control stop
  a.add(sw(t + 600, 0, 0, "R", 1));  // 200 other
  a.add(sw(t + 700, 1, 0, "R", 2));  // 2 was in a tracing stop since the start
  SchedModel m = a.finish(t + 1000);
  const ThreadStates* r = row(m, 1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(off_ns(*r, T), 80u);
  EXPECT_EQ(switches(*r, T), 2u);
  EXPECT_EQ(off_ns(*r, O), 200u);
  EXPECT_EQ(switches(*r, O), 1u);
  EXPECT_EQ(r->on_cpu_ns, 100u + 150 + 70 + 400);
  EXPECT_EQ(total(*r), 1000u);
  const ThreadStates* r2 = row(m, 2);
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(off_ns(*r2, T), 700u);
  EXPECT_EQ(switches(*r2, T), 0u);  // no switch-out seen: it was stopped before the window
  EXPECT_EQ(total(*r2), 1000u);
}

TEST(SchedAnalysis, RunningAtStartAndOpenAtEnd) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.add(sw(kStart + 300, 0, 1, "S", 0));   // was running since the start
  a.add(sw(kStart + 1000, 0, 0, "R", 1));  // back; still running at the end
  SchedModel m = a.finish(kEnd);
  const ThreadStates* t = row(m, 1);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->on_cpu_ns, 300 + (kEnd - kStart - 1000));
  EXPECT_EQ(off_ns(*t, S), 700u);
  EXPECT_EQ(switches(*t, S), 1u);
  EXPECT_EQ(total(*t), kEnd - kStart);
}

TEST(SchedAnalysis, OffCpuAtStartUsesSeededState) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'S'));
  a.seed(seed(2, 'D'));
  a.seed(seed(3, 'R'));
  a.add(sw(kStart + 100, 0, 0, "R", 1));
  a.add(sw(kStart + 200, 0, 1, "S", 2));
  a.add(sw(kStart + 300, 0, 2, "S", 3));
  SchedModel m = a.finish(kStart + 1000);
  EXPECT_EQ(off_ns(*row(m, 1), S), 100u + 800u);
  EXPECT_EQ(off_ns(*row(m, 2), D), 200u);
  EXPECT_EQ(off_ns(*row(m, 2), S), 700u);
  EXPECT_EQ(off_ns(*row(m, 3), R), 300u);  // seeded R, first switched in: it was waiting
  EXPECT_EQ(row(m, 3)->on_cpu_ns, 700u);
  for (pid_t tid : {1, 2, 3}) EXPECT_EQ(total(*row(m, tid)), 1000u) << tid;
}

TEST(SchedAnalysis, SeededRunningWithoutEventsOwnsItsCpuAllWindow) {
  SchedAnalysis a = make();
  a.seed(seed(7, 'R', 1));
  a.seed(seed(8, 'S', 0));
  SchedModel m = a.finish(kEnd);
  EXPECT_EQ(row(m, 7)->on_cpu_ns, kEnd - kStart);
  EXPECT_EQ(off_ns(*row(m, 8), S), kEnd - kStart);
  ASSERT_EQ(m.tenancy.size(), 1u);
  EXPECT_EQ(m.tenancy[0].tid, 7);
  EXPECT_EQ(m.tenancy[0].cpu, 1);
  EXPECT_EQ(m.tenancy[0].on_cpu_ns, kEnd - kStart);
  EXPECT_EQ(m.tenancy[0].switch_ins, 0u);
}

TEST(SchedAnalysis, RunnableRPlusSleepingBlockedOther) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  uint64_t t = kStart;
  a.add(sw(t + 10, 0, 1, "R", 0));   // 10 on
  a.add(sw(t + 20, 0, 0, "R", 1));   // 10 R
  a.add(sw(t + 40, 0, 1, "R+", 0));  // 20 on
  a.add(sw(t + 70, 0, 0, "R", 1));   // 30 R+
  a.add(sw(t + 110, 0, 1, "S", 0));  // 40 on
  a.add(sw(t + 160, 0, 0, "R", 1));  // 50 S
  a.add(sw(t + 220, 0, 1, "D", 0));  // 60 on
  a.add(sw(t + 290, 0, 0, "R", 1));  // 70 D
  a.add(sw(t + 370, 0, 1, "I", 0));  // 80 on
  a.add(sw(t + 460, 0, 0, "R", 1));  // 90 other
  SchedModel m = a.finish(t + 500);  // 40 on
  const ThreadStates* r = row(m, 1);
  EXPECT_EQ(r->on_cpu_ns, 10u + 20 + 40 + 60 + 80 + 40);
  EXPECT_EQ(off_ns(*r, R), 10u + 30);
  EXPECT_EQ(off_ns(*r, S), 50u);
  EXPECT_EQ(off_ns(*r, D), 70u);
  EXPECT_EQ(off_ns(*r, O), 90u);
  EXPECT_EQ(switches(*r, R), 2u);
  EXPECT_EQ(switches(*r, S), 1u);
  EXPECT_EQ(switches(*r, D), 1u);
  EXPECT_EQ(switches(*r, O), 1u);
  EXPECT_EQ(total(*r), 500u);
}

TEST(SchedAnalysis, PreemptorsByTimeWithTheirProcess) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  // 1 preempted by 50 (another process, 900) twice and by 2 (own) once.
  a.add(sw(kStart + 100, 0, 1, "R", 50, kApp, 900));
  a.add(sw(kStart + 400, 0, 50, "R", 1, 900, kApp));  // 300 runnable
  a.add(sw(kStart + 500, 0, 1, "R+", 2));
  a.add(sw(kStart + 550, 0, 2, "S", 1));  // 50 runnable
  a.add(sw(kStart + 600, 0, 1, "R", 50, kApp, 900));
  a.add(sw(kStart + 800, 0, 50, "S", 1, 900, kApp));  // 200 runnable
  SchedModel m = a.finish(kStart + 1000);
  std::vector<PreemptorRow> p1;
  for (const auto& p : m.preemptors)
    if (p.tid == 1) p1.push_back(p);
  ASSERT_EQ(p1.size(), 2u);
  EXPECT_EQ(p1[0].preemptor_tid, 50);
  EXPECT_EQ(p1[0].preemptor_pid, 900);
  EXPECT_EQ(p1[0].preemptor_comm, "t50");
  EXPECT_EQ(p1[0].count, 2u);
  EXPECT_EQ(p1[0].time_ns, 500u);
  EXPECT_EQ(p1[1].preemptor_tid, 2);
  EXPECT_EQ(p1[1].preemptor_pid, kApp);
  EXPECT_EQ(p1[1].count, 1u);
  EXPECT_EQ(p1[1].time_ns, 50u);
  EXPECT_EQ(off_ns(*row(m, 1), R), 550u);
  // 50 belongs to another process: no rows of its own.
  EXPECT_EQ(row(m, 50), nullptr);
}

TEST(SchedAnalysis, PreemptionOpenAtTheEndCountsUntilTheEnd) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.add(sw(kStart + 100, 0, 1, "R", 2));
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_FALSE(m.preemptors.empty());
  EXPECT_EQ(m.preemptors[0].tid, 1);
  EXPECT_EQ(m.preemptors[0].time_ns, 900u);
}

TEST(SchedAnalysis, TenancySumsEqualOnCpuTime) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R', 0));
  a.seed(seed(2, 'S', 1));
  a.add(sw(kStart + 100, 0, 1, "R", 0));
  a.add(sw(kStart + 150, 1, 0, "R", 1));  // 1 migrates to CPU 1
  a.add(sw(kStart + 200, 1, 1, "S", 2));
  a.add(sw(kStart + 260, 0, 0, "R", 1));  // back to CPU 0
  a.add(sw(kStart + 300, 1, 2, "S", 0));
  SchedModel m = a.finish(kStart + 1000);
  for (const ThreadStates& s : m.states) {
    uint64_t sum = 0;
    for (const TenancyRow& t : m.tenancy)
      if (t.tid == s.tid) sum += t.on_cpu_ns;
    EXPECT_EQ(sum, s.on_cpu_ns) << s.tid;
    EXPECT_EQ(total(s), 1000u) << s.tid;
  }
  ASSERT_EQ(m.tenancy.size(), 3u);
  EXPECT_EQ(m.tenancy[0].tid, 1);
  EXPECT_EQ(m.tenancy[0].cpu, 0);
  EXPECT_EQ(m.tenancy[0].on_cpu_ns, 100u + 740);
  EXPECT_EQ(m.tenancy[0].switch_ins, 1u);
  EXPECT_EQ(m.tenancy[1].cpu, 1);
  EXPECT_EQ(m.tenancy[1].on_cpu_ns, 50u);
  // Migrations: CPU changes between switch-ins (1→0 after running on 1).
  EXPECT_EQ(m.wakeups[0].tid, 1);
  EXPECT_EQ(m.wakeups[0].migrations, 1u);
}

TEST(SchedAnalysis, WakeupLatencyPercentilesAndHistogram) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'S'));
  uint64_t t = kStart;
  // Ten wakeups with latencies 1000, 2000, …, 10000 ns.
  for (int i = 1; i <= 10; ++i) {
    a.add(waking(t + 100, 1));
    a.add(sw(t + 100 + static_cast<uint64_t>(i) * 1000, 0, 0, "R", 1));
    t += 100 + static_cast<uint64_t>(i) * 1000 + 500;
    a.add(sw(t, 0, 1, "S", 0));
  }
  // One more far above 16 ms.
  a.add(waking(t + 1, 1));
  a.add(sw(t + 1 + 20'000'000, 0, 0, "R", 1));
  SchedModel m = a.finish(kEnd);
  ASSERT_EQ(m.wakeups.size(), 1u);
  const WakeupRow& w = m.wakeups[0];
  EXPECT_EQ(w.wakeups, 11u);
  EXPECT_EQ(w.p50_ns, 6000u);  // nearest rank: ceil(0.5·11) = 6th
  EXPECT_EQ(w.p90_ns, 10000u);
  EXPECT_EQ(w.p99_ns, 20'000'000u);
  EXPECT_EQ(w.max_ns, 20'000'000u);
  EXPECT_EQ(w.histogram[0], 1u);   // ≤ 1 µs
  EXPECT_EQ(w.histogram[1], 1u);   // ≤ 2 µs
  EXPECT_EQ(w.histogram[2], 2u);   // 3, 4
  EXPECT_EQ(w.histogram[3], 4u);   // 5..8
  EXPECT_EQ(w.histogram[4], 2u);   // 9, 10
  EXPECT_EQ(w.histogram[15], 1u);  // > 16.384 ms
}

// Woken, a thread waits for a CPU: runnable (the kernel's R) from its wakeup to its switch-in,
// not sleeping; on a busy host that wait can outlast the sleep.
TEST(SchedAnalysis, WokenThreadIsRunnableUntilItRuns) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.seed(seed(2, 'R'));
  a.add(sw(kStart + 100, 0, 1, "S", 2));  // 1 sleeps; 2 runs
  a.add(waking(kStart + 300, 1));         // 1 is woken, 2 keeps the CPU
  a.add(sw(kStart + 700, 0, 2, "R", 1));  // 1 runs at last
  a.add(sw(kStart + 800, 0, 1, "S", 2));  // sleeps again, woken by nothing within the window
  a.add(waking(kStart + 900, 1));         // woken, still waiting at the end
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 1);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->on_cpu_ns, 100u + 100u);
  EXPECT_EQ(off_ns(*t, S), 200u + 100u);
  EXPECT_EQ(off_ns(*t, R), 400u + 100u);
  EXPECT_EQ(switches(*t, S), 2u);
  EXPECT_EQ(switches(*t, R), 0u);  // switches count switch-outs: it was never preempted
  EXPECT_EQ(total(*t), 1000u);
  EXPECT_EQ(m.wakeups[0].wakeups, 1u);
}

TEST(SchedAnalysis, LatencyBuckets) {
  EXPECT_EQ(latency_bucket(0), 0);
  EXPECT_EQ(latency_bucket(1000), 0);
  EXPECT_EQ(latency_bucket(1001), 1);
  EXPECT_EQ(latency_bucket(16'384'000), 14);
  EXPECT_EQ(latency_bucket(16'384'001), 15);
}

TEST(SchedAnalysis, ThreadCreatedMidWindowIsAccountedFromItsFirstEvent) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.add(sw(kStart + 500, 0, 1, "R", 9));  // 9 is new: first run
  a.add(sw(kStart + 600, 0, 9, "S", 1));
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 9);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->comm, "t9");
  EXPECT_EQ(t->on_cpu_ns, 100u);
  EXPECT_EQ(off_ns(*t, S), 400u);
  EXPECT_EQ(total(*t), 500u);  // it did not exist before kStart + 500
}

TEST(SchedAnalysis, ThreadCreatedMidWindowIsRunnableFromItsForkToItsFirstRun) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.add(fork_of(kStart + 400, 0, 1, 9));
  a.add(sw(kStart + 500, 0, 1, "R", 9));  // 9 runs for the first time
  a.add(sw(kStart + 600, 0, 9, "S", 1));
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 9);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(off_ns(*t, R), 100u);  // waited for its first run
  EXPECT_EQ(t->on_cpu_ns, 100u);
  EXPECT_EQ(off_ns(*t, S), 400u);
  EXPECT_EQ(total(*t), 600u);  // its life: from the fork on
  const WakeupRow* w = nullptr;
  for (const WakeupRow& r : m.wakeups)
    if (r.tid == 9) w = &r;
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->wakeups, 1u);  // the first run after the fork counts as a wakeup
  EXPECT_EQ(w->max_ns, 100u);
}

TEST(SchedAnalysis, NewThreadWhoseFirstRunWasMissedStartsAtItsFork) {
  // An event filter selects a new thread a moment after its fork: its first switch-in may be
  // missed. The first event seen is then a switch-out; it ran from the CPU's previous switch
  // (after the fork), not since the window start.
  SchedAnalysis a = make();
  a.seed(seed(1, 'R', 1));
  a.add(fork_of(kStart + 400, 0, 1, 9));
  a.add(sw(kStart + 450, 1, 1, "S", 0));  // CPU 1: 1 sleeps, idle
  a.add(sw(kStart + 700, 1, 9, "S", 0));  // 9 ran there from a switch-in we did not see
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 9);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(total(*t), 600u);
  EXPECT_EQ(off_ns(*t, R), 50u);  // fork → the CPU's last switch
  EXPECT_EQ(t->on_cpu_ns, 250u);  // placed at that switch
  EXPECT_EQ(off_ns(*t, S), 300u);
  EXPECT_EQ(m.inferred_switch_ins, 1u);
  EXPECT_EQ(m.inferred_without_wakeup, 0u);
}

TEST(SchedAnalysis, ForkOfASeededThreadChangesNothing) {
  // The fork raced the /proc listing: the child is seeded and its seed stands.
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.seed(seed(9, 'S'));
  a.add(fork_of(kStart + 10, 0, 1, 9));
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 9);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(off_ns(*t, S), 1000u);
  EXPECT_EQ(off_ns(*t, R), 0u);
}

// A shell (kApp, one thread: tid kApp) runs `sleep` (pid 201), which is gone by the end; the
// sleep's events carry its own process (the recorder's tgid from the fork).
void shell_runs_a_child(SchedAnalysis* a) {
  a->seed(ThreadSeed{kApp, kApp, "sh", 'S', 0});
  a->add(sw(kStart + 100, 0, 0, "R", kApp));
  a->add(process_fork(kStart + 150, 0, kApp, kApp, 201));
  a->add(sw(kStart + 200, 0, kApp, "S", 201, kApp, 201));
  a->add(process_fork(kStart + 250, 0, 201, 201, 202));  // the child's own child
  a->add(sw(kStart + 300, 0, 201, "S", 202, 201, 202));
  a->add(sw(kStart + 400, 0, 202, "X", 201, 202, 201));
  a->add(sw(kStart + 500, 0, 201, "X", kApp, 201, kApp));
}

TEST(SchedAnalysis, ChildProcessesAreNotThreadsOfTheTarget) {
  SchedAnalysis a = make();
  shell_runs_a_child(&a);
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_EQ(m.states.size(), 1u);
  EXPECT_EQ(m.states[0].tid, kApp);
  for (const TenancyRow& r : m.tenancy) EXPECT_EQ(r.tid, kApp);
  for (const WakeupRow& r : m.wakeups) EXPECT_EQ(r.tid, kApp);
}

TEST(SchedAnalysis, WithInheritChildProcessesAndTheirsAreReportedUnderTheirOwnPid) {
  AnalysisOptions o{kStart, {kApp}, -1};
  o.inherit = true;
  SchedAnalysis a(o);
  shell_runs_a_child(&a);
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_EQ(m.states.size(), 3u);
  EXPECT_EQ(row(m, kApp)->pid, kApp);
  ASSERT_NE(row(m, 201), nullptr);
  EXPECT_EQ(row(m, 201)->pid, 201);
  EXPECT_EQ(total(*row(m, 201)), 500u - 150u);  // from its fork to its exit
  ASSERT_NE(row(m, 202), nullptr);
  EXPECT_EQ(row(m, 202)->pid, 202);
}

TEST(SchedAnalysis, WithInheritANewThreadOfAChildIsInTheChildsProcess) {
  AnalysisOptions o{kStart, {kApp}, -1};
  o.inherit = true;
  SchedAnalysis a(o);
  a.seed(ThreadSeed{kApp, kApp, "sh", 'S', 0});
  a.add(process_fork(kStart + 100, 0, kApp, kApp, 201));
  ForkEvent t = fork_of(kStart + 200, 0, 201, 205);  // a thread of process 201
  t.parent_tgid = 201;
  t.child_tgid = 201;
  a.add(t);
  a.add(sw(kStart + 300, 0, 0, "R", 205, 0, 201));
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_NE(row(m, 205), nullptr);
  EXPECT_EQ(row(m, 205)->pid, 201);
}

TEST(SchedAnalysis, ThreadThatExitsStopsCounting) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'S'));
  a.add(sw(kStart + 100, 0, 0, "R", 1));
  a.add(sw(kStart + 300, 0, 1, "X", 0));  // exits
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 1);
  EXPECT_EQ(t->on_cpu_ns, 200u);
  EXPECT_EQ(off_ns(*t, S), 100u);
  EXPECT_EQ(off_ns(*t, O), 0u);
  EXPECT_EQ(switches(*t, O), 1u);
}

TEST(SchedAnalysis, UnknownProcessIsNotATarget) {
  SchedAnalysis a = make();
  a.add(sw(kStart + 10, 0, 0, "R", 5, 0, -1));
  SchedModel m = a.finish(kStart + 100);
  EXPECT_TRUE(m.states.empty());
}

TEST(SchedAnalysis, AllTasksIncludeIdlePerCpuInTenancyOnly) {
  SchedAnalysis a = make({});
  a.add(sw(kStart + 100, 0, 0, "R", 1));
  a.add(sw(kStart + 200, 1, 0, "R", 2));
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_EQ(m.states.size(), 2u);  // tids 1 and 2, never the idle task
  ASSERT_GE(m.tenancy.size(), 2u);
  EXPECT_EQ(m.tenancy[0].tid, 0);
  EXPECT_EQ(m.tenancy[0].comm, "swapper/0");
  EXPECT_EQ(m.tenancy[0].on_cpu_ns, 100u);
  EXPECT_EQ(m.tenancy[1].tid, 0);
  EXPECT_EQ(m.tenancy[1].cpu, 1);
  EXPECT_EQ(m.tenancy[1].on_cpu_ns, 200u);
}

TEST(SchedAnalysis, CpuViewLongestTimeOff) {
  SchedAnalysis a = make({}, 1);
  a.seed(seed(1, 'R', 1));
  // 1 runs on CPU 1 from the start, is off 300 ns, runs, is off 100 ns, runs to the end.
  a.add(sw(kStart + 100, 1, 1, "R", 2));
  a.add(sw(kStart + 400, 1, 2, "S", 1));
  a.add(sw(kStart + 500, 1, 1, "S", 0));
  a.add(sw(kStart + 600, 1, 0, "R", 1));
  SchedModel m = a.finish(kStart + 1000);
  ASSERT_GE(m.cpu.size(), 2u);
  EXPECT_EQ(m.cpu[1].tid, 1);
  EXPECT_EQ(m.cpu[1].on_cpu_ns, 100u + 100 + 400);
  EXPECT_EQ(m.cpu[1].switch_ins, 2u);
  EXPECT_EQ(m.cpu[1].longest_off_ns, 300u);
  // 2 ran once, in the middle: the longest gap is from its switch-out to the end.
  EXPECT_EQ(m.cpu[2].tid, 2);
  EXPECT_EQ(m.cpu[2].longest_off_ns, 600u);
}

TEST(SchedAnalysis, MissingSwitchInFromIdleIsPlacedAtTheWakeup) {
  // Some kernels do not trace idle → task switches on some CPUs: the sleeper's switch-out
  // arrives without its switch-in.
  SchedAnalysis a = make({});
  a.seed(seed(1, 'S', 1));
  a.seed(seed(2, 'R', 1));
  a.add(sw(kStart + 100, 1, 2, "S", 0));  // CPU 1 goes idle
  a.add(waking(kStart + 500, 1));
  a.add(sw(kStart + 600, 1, 1, "S", 0));  // switch-in at +500 was not recorded
  SchedModel m = a.finish(kStart + 1000);
  const ThreadStates* t = row(m, 1);
  EXPECT_EQ(t->on_cpu_ns, 100u);
  EXPECT_EQ(off_ns(*t, S), 500u + 400u);
  EXPECT_EQ(m.wakeups[0].wakeups, 0u);  // unknown latency: not counted
  // The idle task of CPU 1 ran 100..500 and 600..1000.
  for (const TenancyRow& r : m.tenancy) {
    if (r.tid == 0 && r.cpu == 1) {
      EXPECT_EQ(r.on_cpu_ns, 400u + 400u);
    }
    if (r.tid == 1) {
      EXPECT_EQ(r.on_cpu_ns, 100u);
    }
  }
}

TEST(SchedAnalysis, MissingSwitchInAfterAMigrationIsPlacedAtTheMigration) {
  // Woken on a busy CPU 0 (the wakeup not recorded: task → task wakeups are left out), then
  // pulled to idle CPU 1, whose idle → task switch the kernel did not record.
  SchedAnalysis a = make({});
  a.seed(seed(1, 'S', 0));
  a.seed(seed(2, 'R', 1));
  a.add(sw(kStart + 100, 1, 2, "S", 0));  // CPU 1 goes idle
  MigrateEvent m;
  m.ctx.ts_ns = kStart + 400;
  m.ctx.cpu = 1;
  m.pid = 1;
  m.tgid = kApp;
  m.comm = tname(1);
  m.orig_cpu = 0;
  m.dest_cpu = 1;
  a.add(m);
  a.add(sw(kStart + 600, 1, 1, "S", 0));
  SchedModel model = a.finish(kStart + 1000);
  const ThreadStates* t = row(model, 1);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->on_cpu_ns, 200u);  // from the migration, not from CPU 1's last switch (+100)
  EXPECT_EQ(model.inferred_switch_ins, 1u);
  EXPECT_EQ(model.inferred_without_wakeup, 0u);
}

TEST(SchedAnalysis, MissingSwitchInsOfTasksOutsideTheTargetsAreNotCounted) {
  // With -p, another task shows up only next to a target's switches: its own switch-ins are
  // missing by design and say nothing about the kernel.
  SchedAnalysis a = make();
  a.seed(seed(1, 'R', 0));
  a.add(sw(kStart + 100, 0, 1, "R", 50, kApp, 7));  // 1 → 50 (another process)
  a.add(sw(kStart + 200, 0, 50, "R", 1, 7, kApp));  // 50 → 1
  a.add(sw(kStart + 300, 0, 1, "S", 50, kApp, 7));  // 1 → 50 again
  a.add(sw(kStart + 500, 0, 50, "S", 1, 7, kApp));  // fine so far
  a.add(sw(kStart + 600, 0, 1, "S", 60, kApp, 7));  // 1 → 60
  a.add(sw(kStart + 900, 0, 50, "S", 1, 7, kApp));  // 50 switched in unseen (60 → 50)
  SchedModel m = a.finish(kStart + 1000);
  EXPECT_EQ(m.inferred_switch_ins, 0u);
  EXPECT_EQ(m.inferred_without_wakeup, 0u);
}

TEST(SchedAnalysis, MissingSwitchInWithoutWakeupStartsAtTheCpusLastSwitch) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'S', 1));
  a.seed(seed(2, 'R', 1));
  a.add(sw(kStart + 100, 1, 2, "S", 0));
  a.add(sw(kStart + 600, 1, 1, "S", 0));
  SchedModel m = a.finish(kStart + 1000);
  EXPECT_EQ(row(m, 1)->on_cpu_ns, 500u);
  EXPECT_EQ(total(*row(m, 1)), 1000u);
}

TEST(SchedAnalysis, OutOfOrderTimestampsNeverGoBackwards) {
  SchedAnalysis a = make();
  a.seed(seed(1, 'R'));
  a.add(sw(kStart + 500, 0, 1, "S", 0));
  a.add(sw(kStart + 400, 0, 0, "R", 1));  // treated as kStart + 500
  SchedModel m = a.finish(kStart + 1000);
  EXPECT_EQ(row(m, 1)->on_cpu_ns, 500u + 500);
  EXPECT_EQ(total(*row(m, 1)), 1000u);
}

}  // namespace
}  // namespace hearth::sched
