// `hearth stacks` as users run it, on target programs this test starts itself
// (tests/integration/targets/stack_target.cpp, built with and without frame pointers).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "formats/raw_samples.h"
#include "formats/timed_samples.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;

using hearth::testing_support::released;
using hearth::testing_support::Target;

// stack_target with N threads (K spinning) at depth D, -fp or -nofp.
std::unique_ptr<Target> start_target(const std::string& variant, int threads, int depth, int spin) {
  return Target::start("stack_target-" + variant,
                       {"--threads", std::to_string(threads), "--depth", std::to_string(depth),
                        "--spin", std::to_string(spin)});
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0;
}

using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The folded line whose root names THREAD ("[spin-0 " prefix).
std::string line_of_thread(const std::string& folded, const std::string& thread) {
  for (const std::string& l : lines_of(folded)) {
    if (l.rfind("[" + thread + " ", 0) == 0 || l.rfind("[" + thread + "]", 0) == 0) return l;
  }
  return "";
}

std::vector<std::string> frames_of(const std::string& line) {
  std::vector<std::string> frames;
  std::string stack = line.substr(0, line.rfind(' '));
  std::stringstream in(stack);
  for (std::string f; std::getline(in, f, ';');) frames.push_back(f);
  return frames;
}

// Expects FRAMES to contain level_0 … level_{depth-1} then LEAF, consecutively.
void expect_complete(const std::vector<std::string>& frames, int depth, const std::string& leaf) {
  auto first = std::find(frames.begin(), frames.end(), "level_0");
  ASSERT_NE(first, frames.end()) << "no level_0";
  for (int i = 0; i < depth; ++i) {
    ASSERT_LT(first + i, frames.end());
    EXPECT_EQ(*(first + i), "level_" + std::to_string(i));
  }
  auto next = first + depth;
  if (next < frames.end() && *next == "leaf") ++next;  // the dispatcher: a tail call at -O2
  ASSERT_LT(next, frames.end());
  EXPECT_EQ(*next, leaf);
  EXPECT_NE(std::find(frames.begin(), first, "start_thread"), first) << "no start_thread below";
}

// (build of the target, capture method): every test runs on both capture paths.
class StacksCli : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (ptrace of another process)";
  }
  std::string build() const { return std::get<0>(GetParam()); }
  std::string method() const { return std::get<1>(GetParam()); }
};

TEST_P(StacksCli, OneSnapshotHasEveryThreadsCompleteStack) {
  auto t = start_target(build(), 6, 7, 2);
  ASSERT_TRUE(t);
  HearthRun r = run_hearth(
      {"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-n", "1", "-o", "-"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  for (const char* name : {"spin-0", "spin-1"}) {
    SCOPED_TRACE(name);
    expect_complete(frames_of(line_of_thread(r.out, name)), 7, "leaf_spin");
  }
  for (const char* name : {"mutex-0", "mutex-1"}) {
    SCOPED_TRACE(name);
    auto frames = frames_of(line_of_thread(r.out, name));
    expect_complete(frames, 7, "leaf_mutex");
    EXPECT_EQ(frames.back().substr(frames.back().size() - 4), "_[k]") << "kernel frames on top";
  }
  for (const char* name : {"cond-0", "cond-1"}) {
    SCOPED_TRACE(name);
    expect_complete(frames_of(line_of_thread(r.out, name)), 7, "leaf_cond");
  }
  // The main thread (named after the program): from _start through main.
  std::string main_line;
  for (const std::string& l : lines_of(r.out)) {
    if (l.rfind("[stack_target", 0) == 0) main_line = l;
  }
  auto main_frames = frames_of(main_line);
  EXPECT_NE(std::find(main_frames.begin(), main_frames.end(), "main"), main_frames.end())
      << main_line;
  EXPECT_NE(r.err.find("hearth stacks: pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stall per sample"), std::string::npos) << r.err;
  EXPECT_TRUE(released(t->pid()));
  EXPECT_TRUE(alive(t->pid()));
}

TEST_P(StacksCli, StateFramesMergedThreadsAndRawSamples) {
  auto t = start_target(build(), 4, 3, 2);
  ASSERT_TRUE(t);
  std::string raw = testing::TempDir() + "/raw.tsv";
  HearthRun r =
      run_hearth({"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-n", "3", "-F",
                  "50", "--state", "--threads", "merge", "--raw", raw, "-o", "-"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  auto spin = frames_of(line_of_thread(r.out, "spin-0"));
  ASSERT_GE(spin.size(), 2u);
  EXPECT_EQ(spin[0], "[spin-0]");  // merged by name: no tid
  EXPECT_EQ(spin[1], "[R running]");
  auto cond = frames_of(line_of_thread(r.out, "cond-0"));
  ASSERT_GE(cond.size(), 2u);
  EXPECT_EQ(cond[1], "[S sleeping]");
  // Counts add up to threads x samples; the raw file has one line per thread sample.
  uint64_t total = 0;
  for (const std::string& l : lines_of(r.out)) total += std::stoull(l.substr(l.rfind(' ') + 1));
  std::ifstream in(raw);
  std::stringstream ss;
  ss << in.rdbuf();
  auto raw_lines = lines_of(ss.str());
  ASSERT_GE(raw_lines.size(), 3u);
  EXPECT_EQ(raw_lines[0].rfind("# hearth stacks raw 1", 0), 0u);
  // A comment line per round says how its stacks were taken; they add up to its rows.
  uint64_t rows = 0, rounds = 0, taken = 0;
  for (const std::string& l : raw_lines) {
    if (l.rfind("# round ", 0) == 0) {
      ++rounds;
      for (const char* key : {"copied=", "reused=", "stopped="}) {
        size_t at = l.find(key);
        ASSERT_NE(at, std::string::npos) << l;
        taken += std::stoull(l.substr(at + std::strlen(key)));
      }
    } else if (!l.starts_with("#")) {
      ++rows;
    }
  }
  EXPECT_EQ(rows, total);
  EXPECT_EQ(rounds, 3u);
  EXPECT_EQ(taken, total);
  // Three rounds (a thread that cannot stop within --stop-timeout on a loaded machine is
  // skipped in its round, so the total need not be a multiple of the thread count).
  EXPECT_NE(r.err.find(": 3 samples of"), std::string::npos) << r.err;
}

// The timed samples and the raw samples of one run hold the same thread samples: per sample
// (time), every thread's state, root and frames; the timed file has fewer lines (unchanged
// threads have none).
TEST_P(StacksCli, TimedSamplesHoldWhatRawSamplesHold) {
  auto t = start_target(build(), 6, 3, 1);
  ASSERT_TRUE(t);
  const std::string dir = testing::TempDir();
  const std::string raw_path = dir + "/same.raw.txt", timed_path = dir + "/same.samples.txt";
  HearthRun r = run_hearth({"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-n",
                            "5", "-F", "50", "--raw", raw_path, "--samples", timed_path, "-o",
                            dir + "/same.folded"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  auto raw = hearth::raw_samples::read_raw_samples(raw_path);
  ASSERT_TRUE(raw.has_value()) << raw.error().message;
  auto timed = hearth::timed_samples::read(timed_path);
  ASSERT_TRUE(timed.has_value()) << timed.error().message;
  EXPECT_TRUE(timed->damage.empty()) << timed->damage;
  EXPECT_EQ(timed->pid, t->pid());
  EXPECT_GT(timed->mono_ns, 0u);
  EXPECT_GT(timed->real_ns, 0u);
  ASSERT_EQ(timed->rounds.size(), raw->rounds.size());
  std::map<uint64_t, std::vector<std::string>> from_raw, from_timed;
  for (const auto& smp : raw->samples) {
    from_raw[smp.time_ns].push_back(std::to_string(smp.tid) + " " + smp.state + " " + smp.stack);
  }
  hearth::timed_samples::expand(*timed, [&](size_t round, auto threads) {
    for (const auto& smp : threads) {
      const auto& th = timed->threads[smp.thread];
      const std::string& frames = timed->stacks[smp.stack];
      from_timed[timed->rounds[round].time_ns].push_back(std::to_string(th.tid) + " " +
                                                         smp.state + " " + th.root +
                                                         (frames.empty() ? "" : ";" + frames));
    }
  });
  for (auto* m : {&from_raw, &from_timed}) {
    for (auto& [time, rows] : *m) std::sort(rows.begin(), rows.end());
  }
  EXPECT_EQ(from_timed, from_raw);
  EXPECT_EQ(from_raw.size(), 5u);
  // Six parked threads and the main thread, five samples: the parked ones' lines only once.
  EXPECT_LT(timed->changes.size(), raw->samples.size());
  std::filesystem::remove(raw_path);
  std::filesystem::remove(timed_path);
  std::filesystem::remove(dir + "/same.folded");
}

TEST_P(StacksCli, DeepStacksAreCompleteOrMarkedTruncated) {
  auto t = start_target(build(), 1, 60, 1);
  ASSERT_TRUE(t);
  HearthRun whole = run_hearth(
      {"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-n", "1", "-o", "-"});
  ASSERT_EQ(WEXITSTATUS(whole.status), 0) << whole.err;
  expect_complete(frames_of(line_of_thread(whole.out, "spin-0")), 60, "leaf_spin");
  HearthRun cut = run_hearth({"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-n",
                              "1", "--max-frames", "40", "-o", "-"});
  ASSERT_EQ(WEXITSTATUS(cut.status), 0) << cut.err;
  auto frames = frames_of(line_of_thread(cut.out, "spin-0"));
  ASSERT_GE(frames.size(), 2u);
  EXPECT_EQ(frames[1], "[truncated]");  // the root side is missing, and says so
  EXPECT_EQ(frames.back(), "leaf_spin");
  EXPECT_EQ(frames.size(), 2u + 40u);
}

TEST_P(StacksCli, SigintEndsARunEarlyWithCompleteOutput) {
  auto t = start_target(build(), 3, 2, 1);
  ASSERT_TRUE(t);
  std::string out = testing::TempDir() + "/sigint.folded";
  HearthRun r = run_hearth({"stacks", "--method", method(), "-p", std::to_string(t->pid()), "-d",
                            "30", "-F", "20", "-o", out},
                           hearth::testing_support::once_handling_sigint_for(500ms));
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(line_of_thread(ss.str(), "spin-0").empty()) << ss.str();
  EXPECT_TRUE(released(t->pid()));
  EXPECT_TRUE(alive(t->pid()));
}

INSTANTIATE_TEST_SUITE_P(Builds, StacksCli,
                         testing::Combine(testing::Values("fp", "nofp"),
                                          testing::Values("bpf", "ptrace")),
                         [](const testing::TestParamInfo<StacksCli::ParamType>& p) {
                           return std::get<0>(p.param) + "_" + std::get<1>(p.param);
                         });

// Context switches of every thread whose name starts with PREFIX ("cond-"), by tid.
std::map<pid_t, uint64_t> switches_of(pid_t pid, const std::string& prefix) {
  std::map<pid_t, uint64_t> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream comm(e.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (!name.starts_with(prefix)) continue;
    std::ifstream status(e.path() / "status");
    uint64_t n = 0;
    for (std::string l; std::getline(status, l);) {
      if (l.starts_with("voluntary_ctxt_switches:") || l.starts_with("nonvoluntary_ctxt_switches:"))
        n += std::stoull(l.substr(l.find(':') + 1));
    }
    out[std::stoi(e.path().filename().string())] = n;
  }
  return out;
}

// The point of the bpf capture: a thread that sleeps is read without being stopped, so it is
// not woken either: its context-switch count does not move while hearth samples it. The
// ptrace capture wakes every sleeper each sample (the same check fails for it).
TEST(StacksCapture, SleepersAreNotWokenByTheBpfCaptureButAreByPtrace) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  // 2 spinning, 99 on a mutex, 99 on a condvar: more threads than one read of the iterator
  // holds, so some records are shown twice by the kernel (a bug once: those were stopped).
  auto t = start_target("nofp", 200, 5, 2);
  ASSERT_TRUE(t);
  for (std::string method : {"bpf", "ptrace"}) {
    SCOPED_TRACE(method);
    auto before_cond = switches_of(t->pid(), "cond-");
    auto before_mutex = switches_of(t->pid(), "mutex-");
    ASSERT_EQ(before_cond.size(), 99u);
    ASSERT_EQ(before_mutex.size(), 99u);
    HearthRun r = run_hearth({"stacks", "--method", method, "-p", std::to_string(t->pid()), "-n",
                              "5", "-F", "50", "-o", "-"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    EXPECT_NE(r.err.find("capture " + method + ":"), std::string::npos) << r.err;
    // Every sleeper was sampled each time.
    for (const auto& [tid, n] : before_cond) {
      EXPECT_NE(r.out.find(" tid=" + std::to_string(tid) + "];"), std::string::npos) << tid;
    }
    auto after_cond = switches_of(t->pid(), "cond-");
    auto after_mutex = switches_of(t->pid(), "mutex-");
    if (method == "bpf") {
      EXPECT_EQ(after_cond, before_cond);
      EXPECT_EQ(after_mutex, before_mutex);
      // 5 samples of 203 threads: the sleepers are copied once, then counted unchanged.
      EXPECT_NE(r.err.find("unchanged since their last copy"), std::string::npos) << r.err;
    } else {
      for (const auto& [tid, n] : before_cond) EXPECT_GE(after_cond[tid], n + 5) << tid;
    }
  }
}

// A program stripped of its symbols (and with no debug file): most frames are "[module+0x…]",
// and the summary says so in one line, naming the module and how hearth finds debug symbols.
// The unstripped program gets no such line.
TEST(StacksCliNames, ManyUnnamedFramesGetAHint) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const std::string copy = ::testing::TempDir() + "/stack_target-stripped";
  ASSERT_EQ(std::system(("cp " HEARTH_TARGETS_DIR "/stack_target-nofp " + copy +
                         " && strip --strip-all " + copy)
                            .c_str()),
            0);
  for (const bool stripped : {true, false}) {
    SCOPED_TRACE(stripped ? "stripped" : "with symbols");
    auto t = Target::start(stripped ? copy : HEARTH_TARGETS_DIR "/stack_target-nofp",
                           {"--threads", "4", "--depth", "10", "--spin", "0"});
    ASSERT_TRUE(t);
    HearthRun r = run_hearth({"stacks", "-p", std::to_string(t->pid()), "-n", "1", "-o", "-"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    const size_t hint = r.err.find("of the frames have no name, most in stack_target-stripped");
    if (stripped) {
      EXPECT_NE(hint, std::string::npos) << r.err;
      EXPECT_NE(r.out.find("[stack_target-stripped+0x"), std::string::npos) << r.out;
    } else {
      EXPECT_EQ(r.err.find("have no name"), std::string::npos) << r.err;
    }
  }
  std::remove(copy.c_str());
}

// JIT code named from the runtime's perf map: Node (Debian's nodejs) with --perf-basic-prof
// writes /tmp/perf-PID.map (V8 names the path; the test removes the file). Its hot JS functions
// must appear by name, marked _[j]; without the map, runs of unknown frames are one frame and
// the summary says which flag writes a map.
TEST(StacksCliJit, NodeFunctionsAreNamedFromItsPerfMap) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  if (access("/usr/bin/node", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/node (Debian's nodejs)";
  const std::string script = ::testing::TempDir() + "/hot.js";
  {
    std::ofstream js(script);
    js << "function fibonacciWork(n) { return n < 2 ? n : fibonacciWork(n - 1) + "
          "fibonacciWork(n - 2); }\n"
          "function outerLoop() { let s = 0; for (;;) { s += fibonacciWork(25); if (s < 0) "
          "break; } return s; }\n"
          "process.stdout.write('ready ' + process.pid + '\\n');\n"
          "outerLoop();\n";
  }
  for (const bool with_map : {true, false}) {
    SCOPED_TRACE(with_map ? "--perf-basic-prof" : "no perf map");
    std::vector<std::string> args;
    // --perf-basic-prof also turns V8's log on: keep it in the test's directory, not the cwd.
    const std::string v8_log = ::testing::TempDir() + "/hot-v8.log";
    if (with_map) {
      args.insert(args.end(),
                  {"--perf-basic-prof", "--no-logfile-per-isolate", "--logfile=" + v8_log});
    }
    args.push_back(script);
    auto t = Target::start("/usr/bin/node", args);
    ASSERT_TRUE(t);
    const std::string pid = std::to_string(t->pid());
    const std::string map = "/tmp/perf-" + pid + ".map";
    std::this_thread::sleep_for(500ms);  // the loop gets compiled (hot code is optimised)
    HearthRun r = run_hearth({"stacks", "-p", pid, "-d", "1", "-F", "50", "-o", "-"});
    kill(t->pid(), SIGKILL);  // a hot loop reads no stdin
    std::remove(map.c_str());
    std::remove(v8_log.c_str());
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    int main_samples = 0, named = 0;
    for (const std::string& line : lines_of(r.out)) {
      if (line.rfind("[node tid=" + pid + "]", 0) != 0) continue;
      const int n = std::stoi(line.substr(line.rfind(' ') + 1));
      main_samples += n;
      if (line.find("fibonacciWork") != std::string::npos && line.find("_[j]") != std::string::npos)
        named += n;
      EXPECT_EQ(line.find("[unknown];[unknown]"), std::string::npos) << line;
    }
    ASSERT_GT(main_samples, 0) << r.out;
    if (with_map) {
      EXPECT_GE(named, main_samples / 2) << r.out;  // the loop is where it spends its time
      EXPECT_EQ(r.err.find("no perf map"), std::string::npos) << r.err;
    } else {
      EXPECT_EQ(named, 0);
      EXPECT_NE(r.err.find("wrote no perf map"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("--perf-basic-prof"), std::string::npos) << r.err;
    }
  }
  std::remove(script.c_str());
}

// A thread that cannot stop (uninterruptible sleep: vfork's wait) is skipped by the ptrace
// method, and the summary names it: tid, name, state, what it waits in, why.
TEST(StacksCliSkipped, ASkippedThreadIsNamed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto t = Target::start("stack_target-fp",
                         {"--threads", "2", "--depth", "2", "--spin", "0", "--dstate", "1500"});
  ASSERT_TRUE(t);
  bool named = false;
  std::string err;
  // The thread is in D 1.5 s of every ~1.5 s; a few snapshots make a skip certain enough.
  for (int attempt = 0; attempt < 10 && !named; ++attempt) {
    HearthRun r = run_hearth({"stacks", "--method", "ptrace", "-p", std::to_string(t->pid()), "-n",
                              "1", "--stop-timeout", "5", "-o", "/dev/null"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    err = r.err;
    for (const std::string& line : lines_of(r.err)) {
      if (line.find("hearth stacks: skipped thread ") == 0 &&
          line.find(" (dstate) D") != std::string::npos &&
          line.find("did not stop in time") != std::string::npos)
        named = true;
    }
  }
  EXPECT_TRUE(named) << err;
}

TEST(StacksCliErrors, WrongPidIsOneClearLine) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  HearthRun r = run_hearth({"stacks", "-p", "999999999", "-n", "1", "-o", "-"});
  EXPECT_EQ(WEXITSTATUS(r.status), 1);
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("999999999"), std::string::npos) << r.err;
  HearthRun bad = run_hearth({"stacks", "-p", "1", "-F", "0", "--threads", "x"});
  EXPECT_EQ(WEXITSTATUS(bad.status), 2);
  EXPECT_EQ(lines_of(bad.err).size(), 2u) << bad.err;
}

// --verbose: where hearth's own time went, three lines after the summary (four with bpf: the
// capture passes), then the symbol cache's; nothing of it without.
TEST(StacksCliVerbose, SaysWhereItsTimeWent) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto t = Target::start(HEARTH_TARGETS_DIR "/stack_target-fp",
                         {"--threads", "4", "--depth", "6", "--spin", "0"});
  ASSERT_TRUE(t);
  const std::string pid = std::to_string(t->pid());
  HearthRun quiet = run_hearth({"stacks", "-p", pid, "-n", "1", "-o", "-"});
  ASSERT_EQ(WEXITSTATUS(quiet.status), 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("time:"), std::string::npos) << quiet.err;
  HearthRun r = run_hearth({"stacks", "-p", pid, "-n", "2", "-F", "20", "-o", "-", "--verbose"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  std::vector<std::string> times;
  for (const std::string& l : lines_of(r.err)) {
    if (l.rfind("hearth stacks: time: ", 0) == 0) times.push_back(l);
  }
  // After the output's line, the symbol cache's (entries and names) and, when kernel frames
  // were named, how the kernel's symbols were had.
  std::vector<std::string> symbols;
  while (!times.empty() && (times.back().rfind("hearth stacks: time: symbols: ", 0) == 0 ||
                            times.back().rfind("hearth stacks: time: kernel symbols: ", 0) == 0)) {
    symbols.insert(symbols.begin(), times.back());
    times.pop_back();
  }
  ASSERT_FALSE(symbols.empty()) << r.err;
  EXPECT_EQ(symbols[0].rfind("hearth stacks: time: symbols: cache ", 0), 0u) << symbols[0];
  EXPECT_NE(symbols[0].find(" from the cache, "), std::string::npos) << symbols[0];
  EXPECT_LE(symbols.size(), 2u) << r.err;
  // With bpf, a line for the capture passes themselves comes before the output's.
  const bool bpf = r.err.find("capture bpf:") != std::string::npos;
  ASSERT_EQ(times.size(), bpf ? 4u : 3u) << r.err;
  if (bpf) {
    const std::string passes = times[2];
    times.erase(times.begin() + 2);
    EXPECT_EQ(passes.rfind("hearth stacks: time: capture passes, unwinding left out: first ", 0), 0u)
        << passes;
    for (const char* part : {" ms, CPU ", " page faults; later ones: median "}) {
      EXPECT_NE(passes.find(part), std::string::npos) << part << " in " << passes;
    }
    EXPECT_EQ(passes.find("-"), std::string::npos) << "no negative figure: " << passes;
  }
  EXPECT_EQ(times[0].rfind("hearth stacks: time: attaching ", 0), 0u) << times[0];
  for (const char* step : {"memory ", "unwinder and symbolizer ", "maps: unwind tables ",
                           "maps: symbol tables "}) {
    EXPECT_NE(times[0].find(step), std::string::npos) << step << " in " << times[0];
  }
  EXPECT_TRUE(times[0].find("capture program (BPF load) ") != std::string::npos ||
              times[0].find("capture (ptrace seize) ") != std::string::npos)
      << times[0];
  EXPECT_EQ(times[1].rfind("hearth stacks: time: 2 rounds ", 0), 0u) << times[1];
  EXPECT_NE(times[1].find("unwinding "), std::string::npos) << times[1];
  // Every thread's stack is distinct or not, but at least one was symbolized.
  const size_t at = times[2].find("symbolizing ");
  ASSERT_NE(at, std::string::npos) << times[2];
  EXPECT_GE(std::stoul(times[2].substr(at + 12)), 1u) << times[2];
  EXPECT_NE(times[2].find(" ms in all"), std::string::npos) << times[2];
  EXPECT_EQ(times[2].find("-"), std::string::npos) << "no negative time: " << times[2];
}

}  // namespace
