// hearth watch's figures (watch/mmv_publish.h) as PCP's own tools see them: a private pmcd with
// the MMV PMDA (pmdammv, as a DSO) reading the test's MMV directory only (PCP_TMP_DIR in the
// test's directory), queried with pminfo over its loopback port.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/integration/private_pmcd.h"
#include "watch/mmv_publish.h"

namespace hearth::watch {
namespace {

namespace fs = std::filesystem;
using testing_support::PrivatePmcd;

constexpr const char* kPminfo = "/usr/bin/pminfo";
constexpr const char* kPmie = "/usr/bin/pmie";
constexpr const char* kPmdaMmv = "/var/lib/pcp/pmdas/mmv/pmda_mmv.so";

// A child process of the test, ended (SIGNAL) and reaped however the test ends.
struct ChildOfTest {
  pid_t pid = 0;
  int signal = SIGKILL;
  ~ChildOfTest() {
    if (pid > 0) {
      kill(pid, signal);
      waitpid(pid, nullptr, 0);
    }
  }
};

class MmvPublishPcp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (pmcd's PMDAs run as root here)";
    for (const char* tool :
         {PrivatePmcd::kPmcd, PrivatePmcd::kPmnsMerge, kPminfo, kPmie, kPmdaMmv}) {
      ASSERT_EQ(access(tool, R_OK), 0) << "no " << tool << " (Debian's pcp; bin/setup installs it)";
    }
    dir_ = ::testing::TempDir() + "/mmv-publish-pcp";
    fs::create_directories(dir_ + "/tmp/mmv");
    fs::create_directories(dir_ + "/tmp/pmie");  // pmie's own statistics file
    // This process (libpcp_mmv, through pmGetConfig, which reads the environment at each call)
    // and pmcd's pmdammv both take the MMV directory from PCP_TMP_DIR.
    if (const char* old = getenv("PCP_TMP_DIR")) old_tmp_dir_ = old;
    setenv("PCP_TMP_DIR", (dir_ + "/tmp").c_str(), 1);
    const std::string why = pmcd_.start(dir_ + "/pmcd", {{"mmv", 70, "mmv_init", kPmdaMmv}},
                                        {"PCP_TMP_DIR=" + dir_ + "/tmp"});
    ASSERT_EQ(why, "");
  }

  void TearDown() override {
    if (old_tmp_dir_) {
      setenv("PCP_TMP_DIR", old_tmp_dir_->c_str(), 1);
    } else {
      unsetenv("PCP_TMP_DIR");
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // ARGV's output (stdout and stderr), and its exit status when not 0.
  std::string run_pcp_tool(const std::vector<std::string>& argv) {
    const std::string out = dir_ + "/tool.out";
    fs::remove(out);
    const int rc = PrivatePmcd::run(argv, out);
    return PrivatePmcd::slurp(out) + (rc == 0 ? "" : "[exit " + std::to_string(rc) + "]");
  }

  // `pminfo -h 127.0.0.1:PORT ARGS...`'s output.
  std::string pminfo(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kPminfo, "-h", "127.0.0.1:" + std::to_string(pmcd_.port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_pcp_tool(argv);
  }

  std::string dir_;
  std::optional<std::string> old_tmp_dir_;
  PrivatePmcd pmcd_;
};

TEST_F(MmvPublishPcp, PminfoShowsTheValuesAndTheirChanges) {
  auto pub = MmvPublisher::start(
      "hearth", {{"queue", "mmv:app.queue.depth > 100 for 2s"}, {"busy", "cpu > 90%"}},
      {"http", "db"});
  ASSERT_TRUE(pub) << pub.error().message;
  ASSERT_EQ(pub->path(), dir_ + "/tmp/mmv/hearth");
  pub->rule(0, 142.5, true);
  pub->rule(1, std::nullopt, false);
  pub->fired(0);
  pub->threads({{"http", 4, 0.5, 0.25, 0}});
  pub->watcher(0.004, 1234, 600, 5 << 20);

  std::string out = pminfo({"-f", "mmv.hearth.watch.rule.value"});
  EXPECT_NE(out.find("inst ["), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"queue\"] value 142.5\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"busy\"] value 0\n"), std::string::npos) << out;
  out = pminfo({"-f", "mmv.hearth.watch.rule.known", "mmv.hearth.watch.triggers",
                "mmv.hearth.watch.up", "mmv.hearth.watch.threads.runnable",
                "mmv.hearth.watch.sampling.stopped_us"});
  EXPECT_NE(out.find(" or \"busy\"] value 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mmv.hearth.watch.triggers\n    value 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mmv.hearth.watch.up\n    value 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"http\"] value 0.25\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"other\"] value 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mmv.hearth.watch.sampling.stopped_us\n    value 1234\n"), std::string::npos)
      << out;
  // Units, semantics and help as PCP's tools show them; the rule's text.
  out = pminfo({"-dT", "mmv.hearth.watch"});
  const size_t stopped = out.find("mmv.hearth.watch.sampling.stopped_us\n");
  ASSERT_NE(stopped, std::string::npos) << out;
  EXPECT_NE(out.find("Semantics: counter  Units: microsec", stopped), std::string::npos) << out;
  for (const char* m :
       {"rule.value", "rule.known", "rule.holds", "rule.fired", "rule.text", "threads.running",
        "threads.runnable", "threads.blocked", "threads.count", "up", "triggers", "reports.written",
        "reports.removed", "sampling.cpu", "ring.seconds", "ring.bytes"}) {
    EXPECT_NE(out.find("mmv.hearth.watch." + std::string(m) + "\n"), std::string::npos) << m;
  }
  EXPECT_NE(out.find("time the target's threads were stopped by hearth, as hearth times it"), std::string::npos)
      << out;
  out = pminfo({"-f", "mmv.hearth.watch.rule.text"});
  EXPECT_NE(out.find(" or \"busy\"] value \"cpu > 90%\"\n"), std::string::npos) << out;

  // pmval, as README shows it: one sample of every thread group.
  out =
      run_pcp_tool({"/usr/bin/pmval", "-s", "1", "-h", "127.0.0.1:" + std::to_string(pmcd_.port()),
                    "mmv.hearth.watch.threads.runnable"});
  EXPECT_NE(out.find(" http "), std::string::npos) << out;
  EXPECT_NE(out.find("0.2500"), std::string::npos) << out;

  // A value changes: pminfo's next fetch has it.
  pub->rule(0, 7.25, false);
  pub->rule(1, 95, true);
  out = pminfo({"-f", "mmv.hearth.watch.rule.value"});
  EXPECT_NE(out.find(" or \"queue\"] value 7.25\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"busy\"] value 95\n"), std::string::npos) << out;
}

TEST_F(MmvPublishPcp, RestartShowsTheNewInstancesAndTheEndRemovesThem) {
  auto started = MmvPublisher::start("hearth", {{"queue", "mmv:app.queue.depth > 100"}}, {"http"});
  ASSERT_TRUE(started) << started.error().message;
  std::optional<MmvPublisher> pub(std::move(*started));
  pub->rule(0, 1, false);
  pub->fired(0);
  std::string out = pminfo({"-f", "mmv.hearth.watch.rule.value"});
  ASSERT_NE(out.find(" or \"queue\"] value 1\n"), std::string::npos) << out;

  // SIGHUP's new rules (within the same second as the last request: pmdammv sees the new file
  // by the old one's generation, not by the directory's mtime).
  ASSERT_TRUE(pub->restart({{"load", "pcp:kernel.all.load > 8"}, {"queue", "mmv:q > 5"}},
                           {"http", "worker"}));
  pub->rule(0, 8.5, true);
  pub->rule(1, 2, false);
  out = pminfo({"-f", "mmv.hearth.watch.rule.value", "mmv.hearth.watch.rule.fired",
                "mmv.hearth.watch.threads.count"});
  EXPECT_NE(out.find(" or \"load\"] value 8.5\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"queue\"] value 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" or \"worker\"] value 0\n"), std::string::npos) << out;
  // The counter carried over the restart: no reset for pmlogger or pmie to misread.
  const size_t fired = out.find("mmv.hearth.watch.rule.fired");
  ASSERT_NE(fired, std::string::npos) << out;
  EXPECT_NE(out.find(" or \"queue\"] value 1\n", fired), std::string::npos) << out;
  out = pminfo({"-f", "mmv.hearth.watch.rule.text"});
  EXPECT_NE(out.find(" or \"load\"] value \"pcp:kernel.all.load > 8\"\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("app.queue.depth"), std::string::npos) << out;

  // The watcher ends: nothing of ours is left for pmcd to serve.
  pub.reset();
  EXPECT_FALSE(fs::exists(dir_ + "/tmp/mmv/hearth"));
  out = pminfo({"-f", "mmv.hearth.watch.up"});
  EXPECT_NE(out.find("Unknown metric name"), std::string::npos) << out;
}

// README's recipe: pmie, PCP's inference engine, runs hearth-on-alert (README's script: `hearth
// record` of the processes named, into a directory named by the time) when a rule over a metric
// holds, here a metric of hearth watch's that the test moves.
TEST_F(MmvPublishPcp, PmieStartsHearthRecordWhenAPublishedValueCrossesItsThreshold) {
  // The application: sleep under a name of its own (its comm), for --comm to find it alone.
  const std::string app = "hq" + std::to_string(getpid() % 1000000) + "app";
  fs::copy_file("/bin/sleep", dir_ + "/" + app);
  fs::permissions(dir_ + "/" + app, fs::perms::owner_all);
  const ChildOfTest target{PrivatePmcd::spawn({dir_ + "/" + app, "300"}, dir_ + "/target.log")};
  ASSERT_GT(target.pid, 0);
  const std::string reports = dir_ + "/reports", log = dir_ + "/on-alert.log";
  {
    std::ofstream script(dir_ + "/hearth-on-alert");
    script << "#!/bin/sh\n"
           << "mkdir -p " << reports << "\n"
           << "exec " << HEARTH_EXE << " record --comm \"$1\" -d \"${2:-30}\" -o \"" << reports
           << "/$(date +%Y%m%d-%H%M%S)\" >>" << log << " 2>&1\n";
  }
  fs::permissions(dir_ + "/hearth-on-alert", fs::perms::owner_all);
  {
    std::ofstream conf(dir_ + "/pmie.conf");
    conf << "delta = 1 sec;\n"
         << "queue_deep = some_inst ( mmv.hearth.watch.rule.value #'queue' > 100 )\n"
         << "    -> shell 10 min \"" << dir_ << "/hearth-on-alert " << app << " 1\";\n";
  }
  const std::string out = dir_ + "/pmie.out";
  ChildOfTest pmie{
      PrivatePmcd::spawn(
          {kPmie, "-v", "-h", "127.0.0.1:" + std::to_string(pmcd_.port()), dir_ + "/pmie.conf"},
          out),
      SIGTERM};
  ASSERT_GT(pmie.pid, 0);
  // Waits for DONE while pmie runs, within a generous bound (what must happen, not a timing).
  auto wait_for = [&](auto done) {
    for (int i = 0; i < 1200 && !done(); ++i) {
      if (waitpid(pmie.pid, nullptr, WNOHANG) == pmie.pid) {
        pmie.pid = 0;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
  };
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  auto report_dirs = [&] {
    std::vector<std::string> dirs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(reports, ec)) dirs.push_back(e.path());
    return dirs;
  };
  // pmie runs first, as a host's does: hearth watch's metrics unknown until it starts.
  ASSERT_TRUE(wait_for([&] {
    return PrivatePmcd::slurp(out).find("unknown") != std::string::npos;
  })) << PrivatePmcd::slurp(out);
  auto pub = MmvPublisher::start("hearth", {{"queue", "mmv:app.queue.depth > 100"}}, {});
  ASSERT_TRUE(pub) << pub.error().message;
  pub->rule(0, 1, false);
  // The rule evaluated false: no report.
  ASSERT_TRUE(wait_for([&] { return PrivatePmcd::slurp(out).find("false") != std::string::npos; }))
      << PrivatePmcd::slurp(out);
  EXPECT_TRUE(report_dirs().empty());
  // The value crosses the threshold: pmie runs the script, hearth record writes a report.
  pub->rule(0, 142, true);
  ASSERT_TRUE(wait_for([&] { return count(PrivatePmcd::slurp(log), "hearth record: wrote ") > 0; }))
      << PrivatePmcd::slurp(out) << PrivatePmcd::slurp(log);
  auto dirs = report_dirs();
  ASSERT_EQ(dirs.size(), 1u) << PrivatePmcd::slurp(log);
  EXPECT_TRUE(fs::exists(dirs[0] + "/index.html"));
  EXPECT_NE(PrivatePmcd::slurp(dirs[0] + "/report.json").find("\"comm\": \"" + app + "\""),
            std::string::npos)
      << PrivatePmcd::slurp(dirs[0] + "/report.json");
  // Once: the rule holds at the evaluations after it, the action's holdoff keeps it from
  // running again.
  EXPECT_TRUE(wait_for([&] { return count(PrivatePmcd::slurp(out), "true") >= 4; }))
      << PrivatePmcd::slurp(out);
  EXPECT_EQ(count(PrivatePmcd::slurp(log), "hearth record: wrote "), 1u) << PrivatePmcd::slurp(log);
  EXPECT_EQ(report_dirs().size(), 1u);
}

}  // namespace
}  // namespace hearth::watch
