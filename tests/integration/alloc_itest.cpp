// `hearth alloc` against a process whose allocation sites and byte totals are known: each site
// found by name with its share of the bytes, the estimate of the whole near the truth, the
// process running on; nothing left in the kernel nor in the target after a SIGKILL; one clear
// line for a process that is not there.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/alloc_test_support.h"
#include "tests/integration/bpf_support.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::exited_with;
using hearth::testing_support::HearthRun;
using hearth::testing_support::malloc_address;
using hearth::testing_support::memory_byte;
using hearth::testing_support::program_exists;
using hearth::testing_support::programs_held;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;
using hearth::testing_support::weight_at;

class Alloc : public testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
  }
};

// Waits (bounded) until hearth's stderr says it is sampling; false if it ended or never did.
bool wait_sampling(pid_t hearth, const std::string& err) {
  for (int i = 0; i < 1000; ++i) {
    if (slurp(err).find("hearth alloc: sampling ") != std::string::npos) return true;
    int status = 0;
    if (waitpid(hearth, &status, WNOHANG) == hearth) return false;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// Two threads, 10,000 rounds each: 200 MB allocated, 60/30/10 between the sites; at a mean of
// 16 KiB that is ~12,000 samples, ~1,200 at the smallest site (a relative error of ~3% each, so
// 15% is five of them). The window is whatever the rounds take: hearth is started, the rounds
// run, the target exits, and the window ends with it.
TEST_F(Alloc, EverySiteByNameWithItsShareOfTheBytes) {
  auto t = Target::start("alloc_target-nofp", {"--threads", "2", "--rounds", "10000"});
  ASSERT_TRUE(t);
  ASSERT_NE(malloc_address(*t), 0u);
  const std::string dir = ::testing::TempDir();
  const std::string err = dir + "/alloc.err", out = dir + "/alloc.folded";
  pid_t h = start_hearth(
      {"alloc", "-p", std::to_string(t->pid()), "-d", "120", "--mean", "16384", "-o", out}, err);
  ASSERT_TRUE(wait_sampling(h, err)) << slurp(err);
  ASSERT_EQ(write(t->stdin_fd(), "go\n", 3), 3);
  auto done = t->read_line(120s);
  ASSERT_TRUE(done && done->starts_with("done ")) << (done ? *done : "no line");
  double truth[3];
  ASSERT_EQ(std::sscanf(done->c_str(), "done %lf %lf %lf", &truth[0], &truth[1], &truth[2]), 3);
  // The process ran through the window unharmed: it answers, then exits on its own.
  EXPECT_EQ(kill(t->pid(), 0), 0);
  t->close_stdin();  // the target exits: hearth's window ends with it
  int status = 0;
  for (int i = 0; i < 6000 && waitpid(h, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(10ms);
  if (!WIFEXITED(status)) {
    kill(h, SIGKILL);
    waitpid(h, &status, 0);
    FAIL() << "hearth did not end with the process: " << slurp(err);
  }
  const std::string e = slurp(err);
  ASSERT_EQ(WEXITSTATUS(status), 0) << e;
  EXPECT_NE(e.find("window ended: the process exited"), std::string::npos) << e;
  const std::string folded = slurp(out);
  const double total = truth[0] + truth[1] + truth[2];
  const char* sites[] = {"alloc_site_a", "alloc_site_b", "alloc_site_c"};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(sites[i]);
    const hearth::testing_support::SiteWeight b = weight_at(folded, sites[i]);
    ASSERT_GT(b.site, 0) << folded.substr(0, 2000);
    // Its share of all the bytes sampled, against the truth (lost samples, if the ring buffer
    // ever filled, fall on every site alike).
    EXPECT_NEAR(b.site / b.all, truth[i] / total, 0.15 * truth[i] / total) << e;
    // Weighted back from the sampling, the bytes themselves, when no sample was lost.
    if (e.find("(0 lost") != std::string::npos) {
      EXPECT_NEAR(b.site, truth[i], 0.15 * truth[i]) << e;
    }
  }
  // Thread names as roots, the threads' entry under them.
  EXPECT_NE(folded.find("[alloc-0 tid="), std::string::npos);
  EXPECT_NE(folded.find("[alloc-1 tid="), std::string::npos);
  EXPECT_NE(folded.find(";alloc_round;alloc_site_a;"), std::string::npos) << folded.substr(0, 2000);
}

// hearth keeps its programs and uprobes only through file descriptors: a SIGKILL (no cleanup
// code runs) removes the breakpoint from the target's malloc and frees the programs, and the
// target allocates on.
TEST_F(Alloc, NothingStaysInTheKernelOrTheTargetAfterSigkill) {
  auto t = Target::start("alloc_target-fp", {"--threads", "2", "--rounds", "0"});
  ASSERT_TRUE(t);
  const uint64_t at = malloc_address(*t);
  ASSERT_NE(at, 0u);
  const int original = memory_byte(t->pid(), at);
  ASSERT_GE(original, 0);
  ASSERT_NE(original, 0xcc);
  const std::string dir = ::testing::TempDir();
  const std::string err = dir + "/kill.err", out = dir + "/kill.svg";
  pid_t h = start_hearth({"alloc", "-p", std::to_string(t->pid()), "-d", "120", "-o", out}, err);
  ASSERT_TRUE(wait_sampling(h, err)) << slurp(err);
  const std::vector<__u32> held = programs_held(h, "hearth_malloc");
  ASSERT_EQ(held.size(), 1u) << slurp(err);
  EXPECT_EQ(memory_byte(t->pid(), at), 0xcc) << "no breakpoint at malloc while sampling";
  kill(h, SIGKILL);
  int status = 0;
  waitpid(h, &status, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !program_exists(held[0]) && memory_byte(t->pid(), at) == original;
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "program " << held[0] << " loaded, or malloc's first byte "
                    << memory_byte(t->pid(), at) << " not back to " << original;
  // No tracefs probe either (libbpf makes one only on kernels without the uprobe PMU).
  const std::string events = slurp("/sys/kernel/tracing/uprobe_events");
  EXPECT_EQ(events.find("libbpf_" + std::to_string(h) + "_"), std::string::npos) << events;
  EXPECT_FALSE(std::filesystem::exists(out));  // nothing half-written
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

// A static, stripped program: no symbol says where its malloc is. One line, nothing written,
// the program untouched.
TEST_F(Alloc, NoMallocSymbolIsOneLine) {
  auto t = Target::start("static_sleeper", {});
  ASSERT_TRUE(t);
  const std::string out = ::testing::TempDir() + "/static.folded";
  HearthRun r = run_hearth({"alloc", "-p", std::to_string(t->pid()), "-d", "1", "-o", out});
  EXPECT_TRUE(exited_with(r, 1)) << r.err;
  EXPECT_EQ(r.err, "hearth alloc: no mapped object of process " + std::to_string(t->pid()) +
                       " defines malloc (a static binary without symbols?): nothing to probe\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

// A process that is not there: one line, exit 2, nothing written.
TEST(AllocCli, NoSuchProcessIsOneLine) {
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const std::string out = ::testing::TempDir() + "/none.folded";
  HearthRun r = run_hearth({"alloc", "-p", std::to_string(gone), "-d", "1", "-o", out});
  EXPECT_TRUE(exited_with(r, 2)) << r.err;
  EXPECT_EQ(r.err, "hearth alloc: no process " + std::to_string(gone) + "\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
