// The stop-free (bpf) capture against the ptrace capture and against the kernel: the same
// stacks for threads that slept through both, nothing left in the kernel after a SIGKILL, a
// clear line for a user who may not use it.
#include <bpf/bpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/bpf_support.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::HearthRun;
using hearth::testing_support::program_exists;
using hearth::testing_support::programs_held;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;

// Folded lines by root ("[cond-0 tid=42]") → the frames below it.
std::map<std::string, std::string> stacks_by_thread(const std::string& folded) {
  std::map<std::string, std::string> out;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    size_t semi = l.find(';');
    size_t space = l.rfind(' ');
    if (semi == std::string::npos || space == std::string::npos || space < semi) continue;
    out[l.substr(0, semi)] = l.substr(semi + 1, space - semi - 1);
  }
  return out;
}

class Capture : public testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
    probe_ = run_hearth({"stacks", "--method", "bpf", "-p", std::to_string(getpid()), "-n", "1"});
  }
  // Whether this kernel runs the bpf capture at all (else the tests say so and skip).
  bool bpf_available() const {
    return probe_.err.find("BPF capture unavailable") == std::string::npos;
  }
  HearthRun probe_;
};

// Takes one snapshot of PID with each method and compares the stacks of the threads whose root
// starts with one of SLEEPERS (frames, user and kernel, identical; kernel frames present).
// Returns how many threads were compared.
int compare_sleepers(pid_t target, const std::vector<std::string>& sleepers,
                     const std::vector<std::string>& bpf_options = {}) {
  const std::string pid = std::to_string(target);
  std::vector<std::string> bpf_args = {"stacks", "--method", "bpf", "-p", pid, "-n", "1", "-o", "-"};
  bpf_args.insert(bpf_args.end(), bpf_options.begin(), bpf_options.end());
  HearthRun bpf = run_hearth(bpf_args);
  HearthRun ptrace = run_hearth({"stacks", "--method", "ptrace", "-p", pid, "-n", "1", "-o", "-"});
  EXPECT_EQ(WEXITSTATUS(bpf.status), 0) << bpf.err;
  EXPECT_EQ(WEXITSTATUS(ptrace.status), 0) << ptrace.err;
  auto a = stacks_by_thread(bpf.out), b = stacks_by_thread(ptrace.out);
  int compared = 0;
  for (const auto& [root, frames] : a) {
    if (std::none_of(sleepers.begin(), sleepers.end(),
                     [&](const std::string& s) { return root.starts_with(s); }))
      continue;
    SCOPED_TRACE(root);
    EXPECT_TRUE(b.contains(root));
    EXPECT_EQ(frames, b[root]);
    EXPECT_NE(frames.find("_[k]"), std::string::npos) << "no kernel frames";
    EXPECT_EQ(frames.find("[unknown]"), std::string::npos);
    ++compared;
  }
  return compared;
}

// A thread that sleeps through both captures has one stack at both moments: the bpf copy
// (registers the kernel saved, stack pages read without a stop, kernel stack from the same
// visit) must unwind and symbolize to exactly what a ptrace stop gives. Condition variable,
// mutex, pause() and a read from a pipe, each under a 6-deep call chain.
TEST_F(Capture, SleepersGiveTheSameStacksAsAPtraceStop) {
  if (!bpf_available()) GTEST_SKIP() << probe_.err;
  auto t = Target::start("stack_target-nofp", {"--threads", "8", "--depth", "6", "--spin", "2"});
  ASSERT_TRUE(t);
  EXPECT_EQ(compare_sleepers(t->pid(), {"[cond-", "[mutex-", "[holder ", "[stack_target-no "}),
            3 + 3 + 1 + 1);
}

// The same on the unwinding test's target, with and without frame pointers: threads asleep in
// a mutex, a condition variable, a pipe read, epoll_wait, nanosleep inside a signal handler, at
// the end of a 201-frame recursion, and the main thread's read.
class CaptureKinds : public Capture, public testing::WithParamInterface<std::string> {};

TEST_P(CaptureKinds, EverySleeperGivesTheSameStackBothWays) {
  if (!bpf_available()) GTEST_SKIP() << probe_.err;
  auto t = Target::start("unwind_target-" + GetParam(), {});
  ASSERT_TRUE(t);
  EXPECT_EQ(compare_sleepers(t->pid(), {"[u-mutex ", "[u-cond ", "[u-read ", "[u-epoll ",
                                        "[u-signal ", "[u-deep ", "[unwind_target-"}),
            7);
}

INSTANTIATE_TEST_SUITE_P(Builds, CaptureKinds, testing::Values("fp", "nofp"));

// The program refills its page arena for every read() of the iterator, and a read() ends once it
// has filled half the arena: 300 sleepers take several reads, each unwound in place before the
// next read() reuses the pages; with 1 MiB copies (a thread's whole copy is more than a read's
// budget, so each read holds one) every stack still matches a ptrace stop's.
TEST_F(Capture, ManyReadsOfTheArenaGiveTheSameStacks) {
  if (!bpf_available()) GTEST_SKIP() << probe_.err;
  auto t = Target::start("stack_target-fp", {"--threads", "300", "--depth", "6", "--spin", "0"});
  ASSERT_TRUE(t);
  EXPECT_EQ(compare_sleepers(t->pid(), {"[cond-", "[mutex-"}), 300);
  auto u = Target::start("unwind_target-nofp", {});
  ASSERT_TRUE(u);
  EXPECT_EQ(compare_sleepers(u->pid(), {"[u-mutex ", "[u-cond ", "[u-read ", "[u-deep "},
                             {"--stack-bytes", "1048576"}),
            4);
}

// hearth keeps its BPF program, maps and iterator link only through file descriptors: a
// SIGKILL (no cleanup code runs) leaves nothing loaded, and the target runs on untraced.
TEST_F(Capture, NothingStaysInTheKernelAfterSigkill) {
  if (!bpf_available()) GTEST_SKIP() << probe_.err;
  auto t = Target::start("stack_target-fp", {"--threads", "4", "--depth", "4", "--spin", "1"});
  ASSERT_TRUE(t);
  std::string err = ::testing::TempDir() + "/sigkill.err";
  std::string out = ::testing::TempDir() + "/sigkill.folded";
  pid_t h = start_hearth({"stacks", "--method", "bpf", "-p", std::to_string(t->pid()), "-d", "30",
                          "-F", "50", "-o", out},
                         err);
  // Bounded wait until it is sampling: its program is loaded.
  std::vector<__u32> held;
  for (int i = 0; i < 500 && held.empty(); ++i) {
    std::this_thread::sleep_for(10ms);
    held = programs_held(h, "hearth_capture");
  }
  ASSERT_EQ(held.size(), 1u) << slurp(err);
  EXPECT_TRUE(program_exists(held[0]));
  std::this_thread::sleep_for(300ms);  // some rounds, stops of the spinner among them
  kill(h, SIGKILL);
  int status = 0;
  waitpid(h, &status, 0);
  // The kernel frees the program when its last reference (our fds, the link) goes: at exit.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = !program_exists(held[0]);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "program " << held[0] << " still loaded after hearth was killed";
  std::string status_file = slurp("/proc/" + std::to_string(t->pid()) + "/status");
  EXPECT_NE(status_file.find("TracerPid:\t0\n"), std::string::npos) << status_file;
  EXPECT_EQ(status_file.find("State:\tt"), std::string::npos) << status_file;
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

// Threads created, running, sleeping and exiting all through the passes (500 a second): every
// stack of a named worker is whole, from start_thread to its leaf, never torn (registers of
// one moment with stack bytes of another) nor mixed with another thread's.
TEST_F(Capture, ChurningThreadsNeverGiveATornStack) {
  if (!bpf_available()) GTEST_SKIP() << probe_.err;
  auto t = Target::start("thread_churn_target-nofp", {"--rate", "500", "--base", "4"});
  ASSERT_TRUE(t);
  std::string raw = ::testing::TempDir() + "/churn.raw";
  HearthRun r = run_hearth({"stacks", "--method", "bpf", "-p", std::to_string(t->pid()), "-d", "2",
                            "-F", "50", "--raw", raw, "-o", "/dev/null"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  std::istringstream in(slurp(raw));
  int churn = 0, base = 0, rounds = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("# round ")) ++rounds;
    if (l.starts_with("#")) continue;
    std::string stack = l.substr(l.rfind('\t') + 1);
    bool is_churn = stack.starts_with("[churn-"), is_base = stack.starts_with("[base-");
    if (!is_churn && !is_base) continue;
    SCOPED_TRACE(stack);
    // Whole from the thread's start: through start_thread, or (a churn thread caught exiting,
    // back in start_thread's own exit path) ending in it.
    EXPECT_TRUE(stack.find(";start_thread;") != std::string::npos ||
                (is_churn && stack.ends_with(";start_thread")));
    EXPECT_EQ(stack.find("[truncated]"), std::string::npos);
    EXPECT_EQ(stack.find("[unknown]"), std::string::npos);
    // A base thread is always in base_main; a churn thread's worker function is churn_main
    // (or it has returned from it into start_thread's exit path).
    if (is_base) {
      EXPECT_NE(stack.find("base_main"), std::string::npos);
      EXPECT_EQ(stack.find("churn_main"), std::string::npos);
    } else {
      EXPECT_EQ(stack.find("base_main"), std::string::npos);
    }
    (is_churn ? churn : base)++;
  }
  EXPECT_GT(churn, 20);
  // Every base thread in every round (~100 idle; a CPU hog on every CPU leaves fewer rounds,
  // 22 were seen), the first perhaps aside.
  EXPECT_GE(rounds, 10);
  EXPECT_GE(base, 4 * (rounds - 1));
}

// A target that calls execve mid-run: said on stderr, marked in the raw samples, and the
// stacks after it are unwound and named in the new program (not against the old one's memory
// and maps), on both capture paths.
class CaptureExec : public testing::TestWithParam<std::string> {};

TEST_P(CaptureExec, AnExecMidRunIsSaidMarkedAndFollowed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto t = Target::start("signal_target-nofp", {"--threads", "3"});
  ASSERT_TRUE(t);
  std::string err = ::testing::TempDir() + "/exec.err", raw = ::testing::TempDir() + "/exec.raw";
  pid_t h = start_hearth({"stacks", "--method", GetParam(), "-p", std::to_string(t->pid()), "-d",
                          "2", "-F", "20", "--raw", raw, "-o", "/dev/null"},
                         err);
  std::this_thread::sleep_for(700ms);
  kill(t->pid(), SIGHUP);  // signal_target re-executes itself
  std::optional<std::string> line;
  for (int i = 0; i < 300 && !line; ++i) line = t->read_line(10ms);
  EXPECT_EQ(line.value_or("none"), "ready " + std::to_string(t->pid()));
  int status = 0;
  for (int i = 0; i < 1000 && waitpid(h, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(10ms);
  if (kill(h, 0) == 0) {
    kill(h, SIGKILL);
    waitpid(h, &status, 0);
    FAIL() << "hearth did not finish";
  }
  std::string text = slurp(err);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "\n" << text;
  EXPECT_NE(text.find("called execve 1 time"), std::string::npos) << text;
  std::istringstream in(slurp(raw));
  int execs = 0, before = 0, after = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("# exec")) ++execs;
    if (l.starts_with("#")) continue;
    SCOPED_TRACE(l);
    EXPECT_EQ(l.find("[truncated]"), std::string::npos);
    EXPECT_EQ(l.find("[unknown]"), std::string::npos);
    (execs == 0 ? before : after)++;
  }
  EXPECT_EQ(execs, 1) << text;
  EXPECT_GT(before, 4) << text;
  EXPECT_GT(after, 4) << text;
}

INSTANTIATE_TEST_SUITE_P(Methods, CaptureExec, testing::Values("bpf", "ptrace"));

// Without privileges: one line that says what to do, exit 1; nothing half-done.
TEST_F(Capture, AnUnprivilegedUserGetsOneClearLine) {
  auto t = Target::start("stack_target-fp", {"--threads", "2", "--depth", "2", "--spin", "0"});
  ASSERT_TRUE(t);
  std::string err = ::testing::TempDir() + "/nobody.err";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    dup2(fd, 2);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(99);
    execl(HEARTH_EXE, HEARTH_EXE, "stacks", "-p", std::to_string(t->pid()).c_str(), "-n", "1", "-o",
          "/dev/null", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::string text = slurp(err);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_NE(text.find("run as root"), std::string::npos) << text;
}

}  // namespace
