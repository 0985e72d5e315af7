// The two ends of the sched TSV contract meet here: what collectors/sched writes, render/sched
// reads back field for field (they share no code, only the README's format). A change on one
// side that the other does not follow fails here before it fails in a user's report.
#include <gtest/gtest.h>

#include <limits>

#include "collectors/sched/tsv_writer.h"
#include "render/sched/sched_tsv_reader.h"

namespace hearth {
namespace {

using sched::OffState;
using sched_model::FileKind;

sched::SchedHeader header() {
  sched::SchedHeader h;
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

sched::SchedModel model() {
  sched::SchedModel m;
  sched::ThreadStates a;
  a.tid = 4242;
  a.pid = 4242;
  a.comm = "app";
  a.on_cpu_ns = 12'000'000'000;
  a.off_ns = {1, 2'000'000'000, 3, 4, 9};
  a.switches = {5, 6, 7, 8, 10};
  sched::ThreadStates b;
  b.tid = 4300;
  b.pid = 4242;
  b.comm = "worker\tone";  // a tab in a name becomes a blank, never a new column
  b.on_cpu_ns = std::numeric_limits<uint64_t>::max();
  b.off_ns = {0, 0, 0, 0, 0};
  b.switches = {0, 0, 0, 0, 0};
  m.states = {a, b};
  m.tenancy = {{4242, "app", 0, 11'000'000'000, 900}, {4242, "app", 1, 1'000'000'000, 12},
               {4300, "worker\tone", 8191, 5, 1}};
  m.preemptors = {{4242, "app", 1, 1, "systemd", 3, 999}, {4242, "app", 0, 0, "swapper/1", 1, 5}};
  sched::WakeupRow w;
  w.tid = 4242;
  w.comm = "app";
  w.wakeups = 120;
  w.p50_ns = 1500;
  w.p90_ns = 9000;
  w.p99_ns = 40000;
  w.max_ns = 17'000'000;
  w.migrations = 4;
  for (int k = 0; k < sched::kLatencyBuckets; ++k) w.histogram[static_cast<size_t>(k)] = k * 3u;
  m.wakeups = {w};
  return m;
}

sched_model::SchedFile parse(const std::string& text) {
  auto parsed = sched_model::parse_sched_tsv(text, "roundtrip.tsv");
  EXPECT_TRUE(parsed.has_value()) << parsed.error().message << "\n" << text;
  return parsed ? *parsed : sched_model::SchedFile{};
}

void expect_header(const sched_model::Header& h, FileKind kind) {
  EXPECT_EQ(h.kind, kind);
  EXPECT_EQ(h.version, sched_model::newest_version(kind));
  EXPECT_EQ(h.window_start_ns, 81234567890123u);
  EXPECT_EQ(h.window_end_ns, 81264567890123u);
  EXPECT_EQ(h.window_ns, 30'000'000'000u);
  EXPECT_EQ(h.lost, 3u);
  ASSERT_EQ(h.targets.size(), 2u);
  EXPECT_EQ(h.targets[0], "pid=4242 comm=app");
  EXPECT_EQ(h.targets[1], "pid=77 comm=other proc");
  using Events = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(h.events,
            (Events{{"sched_switch", 81234},
                    {"sched_waking", 5001},
                    {"sched_wakeup", 309},
                    {"sched_migrate_task", 17}}));
}

TEST(SchedRoundTrip, StatesComeBackFieldForField) {
  auto f = parse(sched::format_states(header(), model()));
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
  auto f = parse(sched::format_tenancy(header(), model()));
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
  auto f = parse(sched::format_preemptors(header(), model()));
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
  static_assert(sched::kLatencyBuckets == sched_model::kWakeupBuckets);
  auto f = parse(sched::format_wakeups(header(), model()));
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
  for (int k = 0; k < sched::kLatencyBuckets; ++k)
    EXPECT_EQ(w.histogram[static_cast<size_t>(k)], k * 3u) << "bucket " << k;
}

TEST(SchedRoundTrip, EmptyModelGivesFilesTheReaderAccepts) {
  sched::SchedHeader h;  // -a: no targets; an empty window
  sched::SchedModel empty;
  for (const std::string& text :
       {sched::format_states(h, empty), sched::format_tenancy(h, empty),
        sched::format_preemptors(h, empty), sched::format_wakeups(h, empty)}) {
    auto parsed = sched_model::parse_sched_tsv(text, "empty.tsv");
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message << "\n" << text;
    EXPECT_EQ(parsed->header.window_ns, 0u);
    EXPECT_TRUE(parsed->states.empty() && parsed->tenancy.empty() &&
                parsed->preemptors.empty() && parsed->wakeups.empty());
  }
}

}  // namespace
}  // namespace hearth
