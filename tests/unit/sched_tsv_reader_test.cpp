#include "formats/sched_tsv.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace hearth::sched_tsv {
namespace {

const std::string kHeader =
    "# target\tpid=4242\tcomm=app\n"
    "# window_ns\t1000\t31000\t30000\n"
    "# events\tsched_switch=81234\tsched_waking=0\n"
    "# lost\t7\n";
const std::string kStatesColumns =
    "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
    "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\n";

std::string states(const std::string& rows) {
  return "# hearth sched.states 1\n" + kHeader + kStatesColumns + rows;
}

// The error message of parsing TEXT as "d/sched.x.tsv"; "" when it parses.
std::string error_of(const std::string& text) {
  Result<SchedFile> f = parse_sched_tsv(text, "d/sched.x.tsv");
  return f ? "" : f.error().message;
}

TEST(SchedTsvReader, StatesWithHeader) {
  Result<SchedFile> f =
      parse_sched_tsv(states("4242\tapp\t4242\t100\t200\t300\t400\t500\t1\t2\t3\t4\n"
                             "4243\tworker 1\t4242\t0\t0\t0\t0\t0\t0\t0\t0\t0\n"),
                      "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->header.kind, FileKind::kStates);
  EXPECT_EQ(f->header.version, 1);
  ASSERT_EQ(f->header.targets.size(), 1u);
  EXPECT_EQ(f->header.targets[0], "pid=4242 comm=app");
  EXPECT_EQ(f->header.window_start_ns, 1000u);
  EXPECT_EQ(f->header.window_end_ns, 31000u);
  EXPECT_EQ(f->header.window_ns, 30000u);
  ASSERT_EQ(f->header.events.size(), 2u);
  EXPECT_EQ(f->header.events[0].first, "sched_switch");
  EXPECT_EQ(f->header.events[0].second, 81234u);
  EXPECT_EQ(f->header.lost, 7u);
  ASSERT_EQ(f->states.size(), 2u);
  const ThreadStates& t = f->states[0];
  EXPECT_EQ(t.tid, 4242);
  EXPECT_EQ(t.comm, "app");
  EXPECT_EQ(t.on_cpu_ns, 100u);
  EXPECT_EQ(t.runnable_ns, 200u);
  EXPECT_EQ(t.sleeping_ns, 300u);
  EXPECT_EQ(t.blocked_ns, 400u);
  EXPECT_EQ(t.other_ns, 500u);
  EXPECT_EQ(t.switches_runnable, 1u);
  EXPECT_EQ(t.switches_other, 4u);
  EXPECT_EQ(f->states[1].comm, "worker 1");  // blanks belong to the field
}

// Version 2 appends stopped_ns and switches_stopped (a tracer's ptrace stops, prev_state "t").
const std::string kStatesV2Columns =
    "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
    "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\t"
    "stopped_ns\tswitches_stopped\n";

TEST(SchedTsvReader, StatesVersion2HasStoppedColumns) {
  Result<SchedFile> f =
      parse_sched_tsv("# hearth sched.states 2\n" + kHeader + kStatesV2Columns +
                          "4242\tapp\t4242\t100\t200\t300\t400\t500\t1\t2\t3\t4\t600\t5\n",
                      "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->header.version, 2);
  ASSERT_EQ(f->states.size(), 1u);
  const ThreadStates& t = f->states[0];
  EXPECT_EQ(t.other_ns, 500u);
  EXPECT_EQ(t.switches_other, 4u);
  EXPECT_EQ(t.stopped_ns, 600u);
  EXPECT_EQ(t.switches_stopped, 5u);
}

TEST(SchedTsvReader, StatesVersion1ReadsNoStoppedTime) {
  Result<SchedFile> f =
      parse_sched_tsv(states("4242\tapp\t4242\t100\t200\t300\t400\t500\t1\t2\t3\t4\n"), "x");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->states.size(), 1u);
  EXPECT_EQ(f->states[0].other_ns, 500u);  // a tracer's stops, if any, are in here
  EXPECT_EQ(f->states[0].stopped_ns, 0u);
  EXPECT_EQ(f->states[0].switches_stopped, 0u);
}

TEST(SchedTsvReader, ColumnsMustMatchTheFilesVersion) {
  // Version 1's columns under a version-2 line, and the other way round.
  EXPECT_NE(error_of("# hearth sched.states 2\n" + kHeader + kStatesColumns)
                .find("d/sched.x.tsv:6: expected the column names `tid comm pid on_cpu_ns "
                      "runnable_ns sleeping_ns blocked_ns other_ns switches_runnable "
                      "switches_sleeping switches_blocked switches_other stopped_ns "
                      "switches_stopped`"),
            std::string::npos);
  EXPECT_NE(error_of("# hearth sched.states 1\n" + kHeader + kStatesV2Columns)
                .find("d/sched.x.tsv:6: expected the column names `tid comm pid on_cpu_ns "
                      "runnable_ns sleeping_ns blocked_ns other_ns switches_runnable "
                      "switches_sleeping switches_blocked switches_other`"),
            std::string::npos);
  // A version-2 row needs all fourteen fields.
  EXPECT_EQ(error_of("# hearth sched.states 2\n" + kHeader + kStatesV2Columns +
                     "4\tx\t4\t1\t1\t1\t1\t1\t0\t0\t0\t0\n"),
            "d/sched.x.tsv:7: 12 tab-separated fields, expected 14 (tid comm pid on_cpu_ns "
            "runnable_ns sleeping_ns blocked_ns other_ns switches_runnable switches_sleeping "
            "switches_blocked switches_other stopped_ns switches_stopped)");
}

TEST(SchedTsvReader, TenancyPreemptorsWakeups) {
  Result<SchedFile> t = parse_sched_tsv("# hearth sched.tenancy 1\n" + kHeader +
                                            "tid\tcomm\tcpu\ton_cpu_ns\tswitch_ins\n"
                                            "5\ta\t0\t10\t1\n5\ta\t3\t20\t2\n6\tb\t3\t5\t1\n",
                                        "x");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->tenancy.size(), 3u);
  EXPECT_EQ(t->tenancy[1].cpu, 3);
  EXPECT_EQ(t->tenancy[1].on_cpu_ns, 20u);

  Result<SchedFile> p = parse_sched_tsv(
      "# hearth sched.preemptors 1\n" + kHeader +
          "tid\tcomm\tpreemptor_pid\tpreemptor_tid\tpreemptor_comm\tcount\ttime_ns\n"
          "5\ta\t15\t15\tkworker/0:1\t3\t900\n5\ta\t5\t6\tb\t1\t100\n",
      "x");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->preemptors.size(), 2u);
  EXPECT_EQ(p->preemptors[0].preemptor_comm, "kworker/0:1");
  EXPECT_EQ(p->preemptors[0].time_ns, 900u);
  EXPECT_EQ(p->preemptors[1].preemptor_pid, 5);

  std::string cols = "tid\tcomm\twakeups\tp50_ns\tp90_ns\tp99_ns\tmax_ns\tmigrations";
  std::string row = "5\ta\t10\t1\t2\t3\t4\t1";
  for (int k = 0; k < 15; ++k) {
    cols.append("\tle_").append(std::to_string(1 << (k % 10))).append(k < 10 ? "us" : "ms");
    row.append("\t").append(std::to_string(k));
  }
  cols += "\tgt_16ms\n";
  row += "\t99\n";
  Result<SchedFile> w = parse_sched_tsv("# hearth sched.wakeups 1\n" + kHeader + cols + row, "x");
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_EQ(w->wakeups.size(), 1u);
  EXPECT_EQ(w->wakeups[0].p99_ns, 3u);
  EXPECT_EQ(w->wakeups[0].histogram[1], 1u);
  EXPECT_EQ(w->wakeups[0].histogram[15], 99u);
}

TEST(SchedTsvReader, ToleratesCrlfBlankLinesUnknownCommentsNoRows) {
  std::string text = "# hearth sched.states 1\r\n# future\tthing\r\n" + kHeader + "\n" +
                     kStatesColumns + "# a comment\n\n4\tx\t4\t1\t1\t1\t1\t1\t0\t0\t0\t0";
  Result<SchedFile> f = parse_sched_tsv(text, "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->states.size(), 1u);
  Result<SchedFile> empty = parse_sched_tsv(states(""), "x");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->states.empty());
}

TEST(SchedTsvReader, BadFirstLine) {
  EXPECT_EQ(error_of(""), "d/sched.x.tsv: empty file, not a hearth sched file");
  EXPECT_EQ(error_of("tid\tcomm\n"),
            "d/sched.x.tsv:1: not a hearth sched file: expected `# hearth sched.KIND VERSION` "
            "first, found `tid?comm`");
  EXPECT_EQ(error_of("# hearth sched.bogus 1\n"),
            "d/sched.x.tsv:1: unknown sched file kind `bogus` (expected states, tenancy, "
            "preemptors or wakeups)");
  EXPECT_EQ(error_of("# hearth sched.states 3\n"),
            "d/sched.x.tsv:1: sched.states version 3 is not supported (this hearth reads "
            "versions 1 to 2)");
  EXPECT_EQ(error_of("# hearth sched.states 0\n"),
            "d/sched.x.tsv:1: sched.states version 0 is not supported (this hearth reads "
            "versions 1 to 2)");
  EXPECT_EQ(error_of("# hearth sched.tenancy 2\n"),
            "d/sched.x.tsv:1: sched.tenancy version 2 is not supported (this hearth reads "
            "version 1)");
  EXPECT_NE(error_of("# hearth sched.states x\n").find(":1: sched.states: the version"),
            std::string::npos);
  EXPECT_NE(error_of("# hearth sched.states\n").find(":1: "), std::string::npos);
}

TEST(SchedTsvReader, BadHeaders) {
  auto with = [](const std::string& header) {
    return error_of("# hearth sched.states 1\n" + header + kStatesColumns);
  };
  EXPECT_EQ(with("# lost\t0\n"), "d/sched.x.tsv:3: the header lacks a `# window_ns` line");
  EXPECT_EQ(with("# window_ns\t1\t2\t1\n"), "d/sched.x.tsv:3: the header lacks a `# lost` line");
  EXPECT_EQ(with("# window_ns\t5\t2\t1\n# lost\t0\n"),
            "d/sched.x.tsv:2: the window ends before it starts");
  EXPECT_EQ(with("# window_ns\t1\t5\t3\n# lost\t0\n"),
            "d/sched.x.tsv:2: the window duration 3 is not END - START (4)");
  EXPECT_EQ(with("# window_ns\t1\t5\n# lost\t0\n"),
            "d/sched.x.tsv:2: `# window_ns` needs 3 numbers: START END DURATION");
  EXPECT_EQ(with("# window_ns\t1\t2\t1\n# lost\t-1\n"),
            "d/sched.x.tsv:3: lost count `-1` is not a number");
  EXPECT_EQ(with("# window_ns\t1\t2\t1\n# lost\t0\n# lost\t0\n"),
            "d/sched.x.tsv:4: `# lost` appears twice in the header");
  EXPECT_EQ(with("# window_ns\t1\t2\t1\n# events\tsched_switch\n# lost\t0\n"),
            "d/sched.x.tsv:3: `# events` entry `sched_switch` is not NAME=COUNT");
  EXPECT_EQ(with("# window_ns\t1\t2\t1\n# events\ta=99999999999999999999\n# lost\t0\n"),
            "d/sched.x.tsv:3: event count `99999999999999999999` is not a number");
  EXPECT_EQ(error_of("# hearth sched.states 1\n# window_ns\t1\t2\t1\n# lost\t0\n"),
            "d/sched.x.tsv: the file ends before its column names line (truncated?)");
  EXPECT_NE(error_of("# hearth sched.states 1\n# window_ns\t1\t2\t1\n# lost\t0\ntid\tcomm\n")
                .find("d/sched.x.tsv:4: expected the column names `tid comm pid on_cpu_ns"),
            std::string::npos);
}

TEST(SchedTsvReader, BadRowsNameFileAndLine) {
  const std::string row = "4\tx\t4\t1\t1\t1\t1\t1\t0\t0\t0\t0\n";
  EXPECT_EQ(error_of(states(row + "4\tx\t4\t1\t1\t1\n")),
            "d/sched.x.tsv:8: 6 tab-separated fields, expected 12 (tid comm pid on_cpu_ns "
            "runnable_ns sleeping_ns blocked_ns other_ns switches_runnable switches_sleeping "
            "switches_blocked switches_other)");
  EXPECT_EQ(error_of(states("4\tx\t4\t1\t1x\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: runnable_ns `1x` is not a non-negative integer");
  EXPECT_EQ(error_of(states("4\tx\t4\t-1\t1\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: on_cpu_ns `-1` is not a non-negative integer");
  EXPECT_EQ(error_of(states("4\tx\t4\t18446744073709551616\t1\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: on_cpu_ns `18446744073709551616` is not a non-negative integer");
  EXPECT_EQ(error_of(states("4\tx\t4\t\t1\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: on_cpu_ns `` is not a non-negative integer");
  EXPECT_EQ(error_of(states("99999999\tx\t4\t1\t1\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: tid 99999999 is larger than any thread id");
  EXPECT_EQ(error_of(states(row + "\n" + row)),
            "d/sched.x.tsv:9: tid 4 appears twice (first on line 7)");
  // Garbage is quoted harmlessly: control bytes as '?', long values cut.
  EXPECT_EQ(error_of(states("4\tx\t4\t\x1b[31m\t1\t1\t1\t1\t0\t0\t0\t0\n")),
            "d/sched.x.tsv:7: on_cpu_ns `?[31m` is not a non-negative integer");
  EXPECT_EQ(
      error_of(states("4\tx\t4\t" + std::string(50, 'z') + "\t1\t1\t1\t1\t0\t0\t0\t0\n")),
      "d/sched.x.tsv:7: on_cpu_ns `" + std::string(40, 'z') + "...` is not a non-negative integer");

  std::string tenancy =
      "# hearth sched.tenancy 1\n" + kHeader + "tid\tcomm\tcpu\ton_cpu_ns\tswitch_ins\n";
  EXPECT_EQ(error_of(tenancy + "5\ta\t8192\t1\t1\n"),
            "d/sched.x.tsv:7: cpu 8192 is larger than any CPU number");
  EXPECT_EQ(error_of(tenancy + "5\ta\t1\t1\t1\n5\ta\t1\t1\t1\n"),
            "d/sched.x.tsv:8: tid 5 on cpu 1 appears twice (first on line 7)");
}

TEST(SchedTsvReader, WakeupPercentilesMustNotDecrease) {
  std::string cols = "tid\tcomm\twakeups\tp50_ns\tp90_ns\tp99_ns\tmax_ns\tmigrations";
  for (int k = 0; k < 15; ++k) cols.append("\tle_").append(std::to_string(k));
  cols += "\tgt_x\n";
  std::string hist;
  for (int k = 0; k < 16; ++k) hist += "\t0";
  std::string text =
      "# hearth sched.wakeups 1\n" + kHeader + cols + "5\ta\t1\t5\t4\t6\t7\t0" + hist;
  EXPECT_EQ(error_of(text),
            "d/sched.x.tsv:7: wakeup latency percentiles decrease (p50 <= p90 <= p99 <= max "
            "expected)");
}

TEST(SchedTsvReader, ReadFile) {
  std::string dir = ::testing::TempDir() + "sched_tsv_reader_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string path = dir + "/sched.states.tsv";
  std::ofstream(path) << states("4\tx\t4\t1\t1\t1\t1\t1\t0\t0\t0\t0\n");
  Result<SchedFile> f = read_sched_tsv(path);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->path, path);
  EXPECT_EQ(f->states.size(), 1u);

  Result<SchedFile> missing = read_sched_tsv(dir + "/nope.tsv");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot read " + dir + "/nope.tsv: No such file or directory");
  Result<SchedFile> is_dir = read_sched_tsv(dir);
  ASSERT_FALSE(is_dir);
  EXPECT_EQ(is_dir.error().message, "cannot read " + dir + ": Is a directory");
  std::filesystem::remove_all(dir);
}

TEST(SchedTsvReader, KindNames) {
  for (FileKind k :
       {FileKind::kStates, FileKind::kTenancy, FileKind::kPreemptors, FileKind::kWakeups}) {
    EXPECT_EQ(parse_kind(kind_name(k)), k);
  }
  EXPECT_FALSE(parse_kind("cpu"));
}

}  // namespace
}  // namespace hearth::sched_tsv
