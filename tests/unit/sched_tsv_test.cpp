// The sched.*.tsv writers, byte for byte against the README contract. After an intended format
// change, update the expected strings here and the README together.
#include "formats/sched_tsv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hearth::sched_tsv {
namespace {

SchedHeader written_header() {
  SchedHeader h;
  h.targets = {{4242, "app"}};
  h.window_start_ns = 1000;
  h.window_end_ns = 31000;
  h.sched_switch = 81234;
  h.sched_waking = 5;
  h.sched_migrate_task = 2;
  h.lost = 0;
  return h;
}

constexpr const char* kWrittenHeader =
    "# target\tpid=4242\tcomm=app\n"
    "# window_ns\t1000\t31000\t30000\n"
    "# events\tsched_switch=81234\tsched_waking=5\tsched_wakeup=0\tsched_migrate_task=2\n"
    "# lost\t0\n";

SchedTables written_model() {
  SchedTables m;
  // tid comm pid on_cpu; runnable sleeping blocked other (ns); their switches; stopped, switches.
  m.states.push_back({4242, "app", 4242, 100, 10, 20, 30, 40, 1, 2, 3, 4, 50, 5});
  m.states.push_back({4250, "worker\t1", 4242, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  m.tenancy.push_back({4242, "app", 0, 60, 3});
  m.tenancy.push_back({4242, "app", 1, 40, 2});
  m.preemptors.push_back({4242, "app", 1, 77, "kworker/0:1", 4, 900});
  m.preemptors.push_back({4242, "app", 4242, 4250, "worker 1", 1, 10});
  WakeupRow w;
  w.tid = 4242;
  w.comm = "app";
  w.wakeups = 3;
  w.p50_ns = 1500;
  w.p90_ns = 3000;
  w.p99_ns = 3000;
  w.max_ns = 3000;
  w.migrations = 1;
  w.histogram[0] = 1;
  w.histogram[1] = 1;
  w.histogram[2] = 1;
  m.wakeups.push_back(w);
  m.cpu.push_back({0, 0, "swapper/1", 500, 9, 20});
  return m;
}

TEST(SchedTsv, States) {
  EXPECT_EQ(format_states(written_header(), written_model().states),
            std::string("# hearth sched.states 2\n") + kWrittenHeader +
                "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
                "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\t"
                "stopped_ns\tswitches_stopped\n"
                "4242\tapp\t4242\t100\t10\t20\t30\t40\t1\t2\t3\t4\t50\t5\n"
                "4250\tworker 1\t4242\t7\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
}

TEST(SchedTsv, Tenancy) {
  EXPECT_EQ(format_tenancy(written_header(), written_model().tenancy),
            std::string("# hearth sched.tenancy 1\n") + kWrittenHeader +
                "tid\tcomm\tcpu\ton_cpu_ns\tswitch_ins\n"
                "4242\tapp\t0\t60\t3\n"
                "4242\tapp\t1\t40\t2\n");
}

TEST(SchedTsv, Preemptors) {
  EXPECT_EQ(format_preemptors(written_header(), written_model().preemptors),
            std::string("# hearth sched.preemptors 1\n") + kWrittenHeader +
                "tid\tcomm\tpreemptor_pid\tpreemptor_tid\tpreemptor_comm\tcount\ttime_ns\n"
                "4242\tapp\t1\t77\tkworker/0:1\t4\t900\n"
                "4242\tapp\t4242\t4250\tworker 1\t1\t10\n");
}

TEST(SchedTsv, Wakeups) {
  EXPECT_EQ(format_wakeups(written_header(), written_model().wakeups),
            std::string("# hearth sched.wakeups 1\n") + kWrittenHeader +
                "tid\tcomm\twakeups\tp50_ns\tp90_ns\tp99_ns\tmax_ns\tmigrations\t"
                "le_1us\tle_2us\tle_4us\tle_8us\tle_16us\tle_32us\tle_64us\tle_128us\t"
                "le_256us\tle_512us\tle_1ms\tle_2ms\tle_4ms\tle_8ms\tle_16ms\tgt_16ms\n"
                "4242\tapp\t3\t1500\t3000\t3000\t3000\t1\t1\t1\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t"
                "0\t0\t0\n");
}

TEST(SchedTsv, CpuViewAndAllTarget) {
  SchedHeader h = written_header();
  h.targets.clear();
  h.cpu = 1;
  h.lost = 12;
  EXPECT_EQ(format_cpu(h, written_model().cpu),
            "# hearth sched.cpu 1\n"
            "# target\tall\tcpu=1\n"
            "# window_ns\t1000\t31000\t30000\n"
            "# events\tsched_switch=81234\tsched_waking=5\tsched_wakeup=0\tsched_migrate_task=2\n"
            "# lost\t12\n"
            "tid\tpid\tcomm\ton_cpu_ns\tswitch_ins\tlongest_off_ns\n"
            "0\t0\tswapper/1\t500\t9\t20\n");
}

TEST(SchedTsv, RepeatedTargets) {
  SchedHeader h = written_header();
  h.targets.push_back({7, "db"});
  std::string out = format_tenancy(h, {});
  EXPECT_NE(out.find("# target\tpid=4242\tcomm=app\n# target\tpid=7\tcomm=db\n# window_ns"),
            std::string::npos);
}

TEST(SchedTsv, WritesFilesAtomicallyIntoTheDirectory) {
  std::string dir = testing::TempDir() + "/sched_tsv_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(write_sched_tsvs(dir, written_header(), written_model(), /*wakeups=*/false,
                               /*cpu_view=*/false));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"sched.preemptors.tsv", "sched.states.tsv",
                                             "sched.tenancy.tsv"}));
  std::ifstream f(dir + "/sched.states.tsv");
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), format_states(written_header(), written_model().states));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hearth::sched_tsv
