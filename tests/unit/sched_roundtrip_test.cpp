// The sched TSVs' round trip (formats/sched_tsv.h): what the writer writes, the reader reads
// back field for field, every file kind. A change on one side that the other does not follow
// fails here before it fails in a user's report.
#include <gtest/gtest.h>

#include <limits>

#include "formats/sched_tsv.h"

namespace hearth::sched_tsv {
namespace {

SchedHeader header() {
  SchedHeader h;
  h.targets = {{4242, "app"}, {77, "other proc"}};
  h.window_start_ns = 81234567890123;
  h.window_end_ns = 81264567890123;
  h.sched_switch = 81234;
  h.sched_waking = 5001;
  h.sched_wakeup = 309;
  h.sched_migrate_task = 17;
  h.lost = 3;
  return h;
}

SchedTables model() {
  SchedTables m;
  ThreadStates a;
  a.tid = 4242;
  a.pid = 4242;
  a.comm = "app";
  a.on_cpu_ns = 12'000'000'000;
  a.runnable_ns = 1;
  a.sleeping_ns = 2'000'000'000;
  a.blocked_ns = 3;
  a.other_ns = 4;
  a.stopped_ns = 9;
  a.switches_runnable = 5;
  a.switches_sleeping = 6;
  a.switches_blocked = 7;
  a.switches_other = 8;
  a.switches_stopped = 10;
  ThreadStates b;
  b.tid = 4300;
  b.pid = 4242;
  b.comm = "worker\tone";  // a tab in a name becomes a blank, never a new column
  b.on_cpu_ns = std::numeric_limits<uint64_t>::max();
  m.states = {a, b};
  m.tenancy = {{4242, "app", 0, 11'000'000'000, 900},
               {4242, "app", 1, 1'000'000'000, 12},
               {4300, "worker\tone", 8191, 5, 1}};
  m.preemptors = {{4242, "app", 1, 1, "systemd", 3, 999}, {4242, "app", 0, 0, "swapper/1", 1, 5}};
  WakeupRow w;
  w.tid = 4242;
  w.comm = "app";
  w.wakeups = 120;
  w.p50_ns = 1500;
  w.p90_ns = 9000;
  w.p99_ns = 40000;
  w.max_ns = 17'000'000;
  w.migrations = 4;
  for (int k = 0; k < kWakeupBuckets; ++k) w.histogram[static_cast<size_t>(k)] = k * 3u;
  m.wakeups = {w};
  m.cpu = {{0, 0, "swapper/3", 900, 40, 77}, {4242, 4242, "app", 11, 2, 1'000'000'000}};
  return m;
}

SchedFile parse(const std::string& text) {
  auto parsed = parse_sched_tsv(text, "roundtrip.tsv");
  EXPECT_TRUE(parsed.has_value()) << parsed.error().message << "\n" << text;
  return parsed ? *parsed : SchedFile{};
}

void expect_header(const Header& h, FileKind kind) {
  EXPECT_EQ(h.kind, kind);
  EXPECT_EQ(h.version, newest_version(kind));
  EXPECT_EQ(h.window_start_ns, 81234567890123u);
  EXPECT_EQ(h.window_end_ns, 81264567890123u);
  EXPECT_EQ(h.window_ns, 30'000'000'000u);
  EXPECT_EQ(h.lost, 3u);
  ASSERT_EQ(h.targets.size(), 2u);
  EXPECT_EQ(h.targets[0], "pid=4242 comm=app");
  EXPECT_EQ(h.targets[1], "pid=77 comm=other proc");
  using Events = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(h.events, (Events{{"sched_switch", 81234},
                              {"sched_waking", 5001},
                              {"sched_wakeup", 309},
                              {"sched_migrate_task", 17}}));
}

TEST(SchedRoundTrip, StatesComeBackFieldForField) {
  auto f = parse(format_states(header(), model().states));
  expect_header(f.header, FileKind::kStates);
  ASSERT_EQ(f.states.size(), 2u);
  const auto& a = f.states[0];
  EXPECT_EQ(a.tid, 4242);
  EXPECT_EQ(a.pid, 4242);
  EXPECT_EQ(a.comm, "app");
  EXPECT_EQ(a.on_cpu_ns, 12'000'000'000u);
  EXPECT_EQ(a.runnable_ns, 1u);
  EXPECT_EQ(a.sleeping_ns, 2'000'000'000u);
  EXPECT_EQ(a.blocked_ns, 3u);
  EXPECT_EQ(a.other_ns, 4u);
  EXPECT_EQ(a.switches_runnable, 5u);
  EXPECT_EQ(a.switches_sleeping, 6u);
  EXPECT_EQ(a.switches_blocked, 7u);
  EXPECT_EQ(a.switches_other, 8u);
  EXPECT_EQ(a.stopped_ns, 9u);
  EXPECT_EQ(a.switches_stopped, 10u);
  EXPECT_EQ(f.states[1].comm, "worker one");
  EXPECT_EQ(f.states[1].on_cpu_ns, std::numeric_limits<uint64_t>::max());
}

TEST(SchedRoundTrip, TenancyComesBackFieldForField) {
  auto f = parse(format_tenancy(header(), model().tenancy));
  expect_header(f.header, FileKind::kTenancy);
  ASSERT_EQ(f.tenancy.size(), 3u);
  EXPECT_EQ(f.tenancy[0].tid, 4242);
  EXPECT_EQ(f.tenancy[0].cpu, 0);
  EXPECT_EQ(f.tenancy[0].on_cpu_ns, 11'000'000'000u);
  EXPECT_EQ(f.tenancy[0].switch_ins, 900u);
  EXPECT_EQ(f.tenancy[1].cpu, 1);
  EXPECT_EQ(f.tenancy[2].cpu, 8191);
  EXPECT_EQ(f.tenancy[2].comm, "worker one");
}

TEST(SchedRoundTrip, PreemptorsComeBackFieldForField) {
  auto f = parse(format_preemptors(header(), model().preemptors));
  expect_header(f.header, FileKind::kPreemptors);
  ASSERT_EQ(f.preemptors.size(), 2u);
  const auto& p = f.preemptors[0];
  EXPECT_EQ(p.tid, 4242);
  EXPECT_EQ(p.comm, "app");
  EXPECT_EQ(p.preemptor_pid, 1);
  EXPECT_EQ(p.preemptor_tid, 1);
  EXPECT_EQ(p.preemptor_comm, "systemd");
  EXPECT_EQ(p.count, 3u);
  EXPECT_EQ(p.time_ns, 999u);
  EXPECT_EQ(f.preemptors[1].preemptor_comm, "swapper/1");
}

TEST(SchedRoundTrip, WakeupsComeBackWithEveryHistogramBucket) {
  auto f = parse(format_wakeups(header(), model().wakeups));
  expect_header(f.header, FileKind::kWakeups);
  ASSERT_EQ(f.wakeups.size(), 1u);
  const auto& w = f.wakeups[0];
  EXPECT_EQ(w.tid, 4242);
  EXPECT_EQ(w.wakeups, 120u);
  EXPECT_EQ(w.p50_ns, 1500u);
  EXPECT_EQ(w.p90_ns, 9000u);
  EXPECT_EQ(w.p99_ns, 40000u);
  EXPECT_EQ(w.max_ns, 17'000'000u);
  EXPECT_EQ(w.migrations, 4u);
  for (int k = 0; k < kWakeupBuckets; ++k)
    EXPECT_EQ(w.histogram[static_cast<size_t>(k)], k * 3u) << "bucket " << k;
}

TEST(SchedRoundTrip, EmptyModelGivesFilesTheReaderAccepts) {
  SchedHeader h;  // -a: no targets; an empty window
  SchedTables empty;
  for (const std::string& text :
       {format_states(h, empty.states), format_tenancy(h, empty.tenancy),
        format_preemptors(h, empty.preemptors), format_wakeups(h, empty.wakeups)}) {
    auto parsed = parse_sched_tsv(text, "empty.tsv");
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message << "\n" << text;
    EXPECT_EQ(parsed->header.window_ns, 0u);
    EXPECT_TRUE(parsed->states.empty() && parsed->tenancy.empty() && parsed->preemptors.empty() &&
                parsed->wakeups.empty());
  }
}

TEST(SchedRoundTrip, CpuViewComesBackFieldForField) {
  SchedHeader h = header();
  h.targets.clear();  // --cpu goes with -a
  h.cpu = 3;
  auto parsed = parse_sched_cpu_tsv(format_cpu(h, model().cpu), "roundtrip.tsv");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->header.kind, FileKind::kCpu);
  EXPECT_EQ(parsed->header.version, newest_version(FileKind::kCpu));
  EXPECT_EQ(parsed->header.targets, (std::vector<std::string>{"all cpu=3"}));
  EXPECT_EQ(parsed->header.window_ns, 30'000'000'000u);
  ASSERT_EQ(parsed->cpu.size(), 2u);
  const CpuRow& idle = parsed->cpu[0];
  EXPECT_EQ(idle.tid, 0);
  EXPECT_EQ(idle.pid, 0);
  EXPECT_EQ(idle.comm, "swapper/3");
  EXPECT_EQ(idle.on_cpu_ns, 900u);
  EXPECT_EQ(idle.switch_ins, 40u);
  EXPECT_EQ(idle.longest_off_ns, 77u);
  EXPECT_EQ(parsed->cpu[1].tid, 4242);
  EXPECT_EQ(parsed->cpu[1].pid, 4242);
  EXPECT_EQ(parsed->cpu[1].longest_off_ns, 1'000'000'000u);
}

TEST(SchedRoundTrip, EachReaderTakesOnlyItsKinds) {
  // The charts' reader leaves sched.cpu files out (no chart reads them); the cpu reader reads
  // nothing else.
  auto cpu_as_chart = parse_sched_tsv(format_cpu(header(), model().cpu), "d/sched.cpu.tsv");
  ASSERT_FALSE(cpu_as_chart.has_value());
  EXPECT_NE(cpu_as_chart.error().message.find("unknown sched file kind `cpu`"), std::string::npos);
  auto states_as_cpu = parse_sched_cpu_tsv(format_states(header(), model().states), "s.tsv");
  ASSERT_FALSE(states_as_cpu.has_value());
  EXPECT_EQ(states_as_cpu.error().message,
            "s.tsv:1: unknown sched file kind `states` (expected cpu)");
}

}  // namespace
}  // namespace hearth::sched_tsv
