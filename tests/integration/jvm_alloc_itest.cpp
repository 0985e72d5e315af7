// `hearth alloc` on a JVM (HotSpot's object__alloc USDT probe): OpenJDK 17 runs
// tests/integration/targets/JAlloc.java, compiled here with javac, with
// -XX:+ExtendedDTraceProbes and frame pointers kept; `jcmd PID Compiler.perfmap` names its
// compiled methods. The flamegraph's leaves are the classes, each under the method that
// allocates it; --class and --exclude-class filter by class; a JVM without the flag gets one line
// naming it; --live is refused in one line; a SIGKILL of hearth leaves no program loaded and the
// probe's site in libjvm as it was.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "collectors/proc/maps.h"
#include "tests/integration/alloc_test_support.h"
#include "tests/integration/bpf_support.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using hearth::testing_support::HearthRun;
using hearth::testing_support::JvmLitter;
using hearth::testing_support::memory_byte;
using hearth::testing_support::run_tool;
using hearth::testing_support::slurp;
using hearth::testing_support::Target;

// Stack (without its weight) -> weight, of a folded text.
std::map<std::string, double> folded_lines(const std::string& folded) {
  std::map<std::string, double> out;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    const size_t space = l.rfind(' ');
    if (space == std::string::npos) continue;
    out[l.substr(0, space)] += std::strtod(l.c_str() + space + 1, nullptr);
  }
  return out;
}

// The weight of the stacks ending in TAIL (";method;class"), and of all.
struct TailWeight {
  double tail = 0, all = 0;
};
TailWeight weight_ending(const std::map<std::string, double>& lines, const std::string& tail) {
  TailWeight w;
  for (const auto& [stack, n] : lines) {
    w.all += n;
    if (stack.ends_with(tail)) w.tail += n;
  }
  return w;
}

constexpr const char* kWidget = ";JAlloc$Widget JAlloc.makeWidget(long)_[j];JAlloc$Widget";
constexpr const char* kBytes = ";byte[] JAlloc.makeBytes(long)_[j];byte[]";

class JvmAlloc : public testing::Test {
 protected:
  // javac once for the suite (a second and more of the suite's few), into a directory of its own.
  static void SetUpTestSuite() {
    if (geteuid() != 0 || access("/usr/bin/javac", X_OK) != 0) return;
    std::string dir = ::testing::TempDir() + "/jvm-alloc-classes-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) return;
    classes_ = new std::string(dir);
    // -XX:-UsePerfData everywhere: no JVM here writes /tmp/hsperfdata_USER/.
    if (run_tool({"/usr/bin/javac", "-J-XX:-UsePerfData", "-d", dir,
                       HEARTH_TARGET_SOURCES_DIR "/JAlloc.java"},
                      dir + "/javac.log") != 0)
      javac_log_ = new std::string(slurp(dir + "/javac.log"));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    if (classes_ != nullptr) fs::remove_all(*classes_, ec);
    delete classes_;
    delete javac_log_;
    classes_ = javac_log_ = nullptr;
  }

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
    for (const char* tool : {"/usr/bin/java", "/usr/bin/javac", "/usr/bin/jcmd"}) {
      if (access(tool, X_OK) != 0)
        GTEST_SKIP() << "no " << tool << " (Debian's openjdk-17-jdk-headless)";
    }
    ASSERT_NE(classes_, nullptr);
    ASSERT_EQ(javac_log_, nullptr) << *javac_log_;
    litter_.dir = ::testing::TempDir() + "/jvm-alloc";
    fs::create_directories(litter_.dir);
    log_ = litter_.dir + "/tool.log";
  }

  // JAlloc with one thread; with PROBES, -XX:+ExtendedDTraceProbes.
  std::unique_ptr<Target> start_jvm(bool probes) {
    std::vector<std::string> args = {"-XX:+PreserveFramePointer", "-XX:-UsePerfData",
                                     "-XX:CompileCommand=quiet",
                                     "-XX:CompileCommand=dontinline,JAlloc::make*"};
    if (probes) args.insert(args.begin(), "-XX:+ExtendedDTraceProbes");
    for (const char* a : {"-cp", classes_->c_str(), "JAlloc", "1"}) args.push_back(a);
    auto t = Target::start("/usr/bin/java", args);
    if (t) litter_.pids.push_back(t->pid());
    return t;
  }

  // Has the JVM write its perf map until it names both allocating methods (the JIT compiles
  // them within the warm-up the target waits for; a bound, not a timing).
  bool write_perf_map(pid_t pid) {
    const std::string map = "/tmp/perf-" + std::to_string(pid) + ".map";
    for (int attempt = 0; attempt < 60; ++attempt) {
      if (run_tool(
              {"/usr/bin/jcmd", "-J-XX:-UsePerfData", std::to_string(pid), "Compiler.perfmap"},
              log_) == 0) {
        const std::string text = slurp(map);
        if (text.find("JAlloc.makeWidget(long)") != std::string::npos &&
            text.find("JAlloc.makeBytes(long)") != std::string::npos)
          return true;
      }
      std::this_thread::sleep_for(250ms);
    }
    return false;
  }

  static std::string* classes_;    // JAlloc's class files
  static std::string* javac_log_;  // javac's output when it failed
  JvmLitter litter_;
  std::string log_;
};
std::string* JvmAlloc::classes_ = nullptr;
std::string* JvmAlloc::javac_log_ = nullptr;

// The classes are the leaves, each under its allocating method; the bytes split as the objects'
// sizes say (a Widget: 56 bytes with compressed pointers, a byte[1000]: 1,016; one of each per
// round: 94.8% byte[]). At a mean of 256 KiB that is ~5,000 samples a second on an idle machine,
// ~5% of them Widgets (each weighing the mean): the share is checked to 0.05 either side, six
// standard deviations at a tenth of that rate (a loaded machine's JVM).
TEST_F(JvmAlloc, ClassesUnderTheirAllocatingMethods) {
  auto t = start_jvm(true);
  ASSERT_TRUE(t);
  ASSERT_TRUE(write_perf_map(t->pid())) << slurp(log_);
  const std::string pid = std::to_string(t->pid());
  const std::string out = litter_.dir + "/alloc.folded";
  HearthRun r = hearth::testing_support::run_hearth(
      {"alloc", "-p", pid, "-d", "2", "--mean", "262144", "-o", out});
  ASSERT_TRUE(hearth::testing_support::exited_with(r, 0)) << r.err;
  EXPECT_NE(r.err.find("Java objects"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote no perf map"), std::string::npos) << r.err;
  const auto lines = folded_lines(slurp(out));
  const TailWeight widget = weight_ending(lines, kWidget);
  const TailWeight bytes = weight_ending(lines, kBytes);
  ASSERT_GT(widget.tail, 0) << slurp(out);
  ASSERT_GT(bytes.tail, 0) << slurp(out);
  // Nearly everything the process allocated is these two (the JVM's own threads allocate little).
  EXPECT_GE((widget.tail + bytes.tail) / widget.all, 0.95) << slurp(out);
  EXPECT_NEAR(bytes.tail / (widget.tail + bytes.tail), 1016.0 / 1072.0, 0.05) << slurp(out);
  // The thread is the root, the JVM's thread entry under it: the stack is whole.
  for (const auto& [stack, n] : lines) {
    if (!stack.ends_with(kWidget)) continue;
    EXPECT_TRUE(stack.starts_with("[alloc-0 tid=")) << stack;
    EXPECT_NE(stack.find(";JavaCalls::call_helper("), std::string::npos) << stack;
    EXPECT_NE(stack.find(";void JAlloc.work("), std::string::npos) << stack;
  }

  // --class keeps only the matching classes; --exclude-class leaves them out.
  const std::string only = litter_.dir + "/only.folded";
  r = hearth::testing_support::run_hearth(
      {"alloc", "-p", pid, "-d", "1", "--count", "--class", "Widget$", "-o", only});
  ASSERT_TRUE(hearth::testing_support::exited_with(r, 0)) << r.err;
  EXPECT_NE(r.err.find("left out by class"), std::string::npos) << r.err;
  const auto only_lines = folded_lines(slurp(only));
  EXPECT_FALSE(only_lines.empty());
  for (const auto& [stack, n] : only_lines) EXPECT_TRUE(stack.ends_with(kWidget)) << stack;
  // As a flamegraph (the mem palette, objects counted), without the byte arrays.
  const std::string svg = litter_.dir + "/but.svg";
  r = hearth::testing_support::run_hearth(
      {"alloc", "-p", pid, "-d", "1", "--count", "--exclude-class", "^byte\\[", "-o", svg});
  ASSERT_TRUE(hearth::testing_support::exited_with(r, 0)) << r.err;
  const std::string picture = slurp(svg);
  EXPECT_NE(picture.find("Java allocations: process " + pid), std::string::npos);
  EXPECT_NE(picture.find("JAlloc$Widget JAlloc.makeWidget(long)"), std::string::npos);
  EXPECT_NE(picture.find(" objects"), std::string::npos);
  EXPECT_EQ(picture.find("JAlloc.makeBytes"), std::string::npos);
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

// Without -XX:+ExtendedDTraceProbes the probe never fires: hearth reads the JVM's flag and says
// so at once, in one line naming it (exit 1, nothing attached, nothing written). --live (native
// only) and a bad --class: one line, exit 2.
TEST_F(JvmAlloc, WithoutTheFlagOneLineNamesIt) {
  auto t = start_jvm(false);
  ASSERT_TRUE(t);
  const std::string pid = std::to_string(t->pid());
  const std::string out = litter_.dir + "/none.folded";
  HearthRun r = hearth::testing_support::run_hearth({"alloc", "-p", pid, "-d", "60", "-o", out});
  EXPECT_TRUE(hearth::testing_support::exited_with(r, 1)) << r.err;
  EXPECT_EQ(r.err.find("hearth alloc: process " + pid +
                       " is a JVM started without -XX:+ExtendedDTraceProbes"),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("start the JVM with -XX:+ExtendedDTraceProbes"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));

  r = hearth::testing_support::run_hearth({"alloc", "-p", pid, "--live", "-o", out});
  EXPECT_TRUE(hearth::testing_support::exited_with(r, 2)) << r.err;
  EXPECT_NE(r.err.find("--live is native only"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = hearth::testing_support::run_hearth({"alloc", "-p", pid, "--class", "(x", "-o", out});
  EXPECT_TRUE(hearth::testing_support::exited_with(r, 2)) << r.err;
  EXPECT_EQ(r.err.find("hearth alloc: --class: "), 0u) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

// The probe's site in libjvm (a nop, 0x90) holds the uprobe's breakpoint (0xcc) while hearth
// samples; after a SIGKILL of hearth the kernel puts the nop back and frees the program, and the
// JVM allocates on.
TEST_F(JvmAlloc, NothingStaysAfterSigkill) {
  auto t = start_jvm(true);
  ASSERT_TRUE(t);
  // The site: the stapsdt note's location (readelf -n), where libjvm's text is mapped (its
  // segments' addresses equal their file offsets).
  uint64_t site = 0;
  auto maps = hearth::proc::read_maps(t->pid());
  ASSERT_TRUE(maps);
  for (const auto& m : *maps) {
    if (!m.exec || !m.path.ends_with("/libjvm.so")) continue;
    FILE* p = popen(("readelf -n " + m.path).c_str(), "r");
    ASSERT_NE(p, nullptr);
    char line[512];
    bool in_probe = false;
    while (fgets(line, sizeof line, p) != nullptr) {
      const std::string l = line;
      if (l.find("Name: ") != std::string::npos) in_probe = l.find("object__alloc") != l.npos;
      const size_t at = l.find("Location: 0x");
      if (in_probe && at != std::string::npos && site == 0)
        site = m.start - m.offset + std::stoull(l.substr(at + 10), nullptr, 16);
    }
    pclose(p);
  }
  ASSERT_NE(site, 0u);
  ASSERT_EQ(memory_byte(t->pid(), site), 0x90);
  const std::string err = litter_.dir + "/kill.err", out = litter_.dir + "/kill.svg";
  pid_t h = hearth::testing_support::start_hearth(
      {"alloc", "-p", std::to_string(t->pid()), "-d", "120", "-o", out}, err);
  bool sampling = false;
  for (int i = 0; i < 1000 && !sampling; ++i) {
    sampling = slurp(err).find("hearth alloc: sampling ") != std::string::npos;
    int status = 0;
    if (!sampling && waitpid(h, &status, WNOHANG) == h) break;
    if (!sampling) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(sampling) << slurp(err);
  // No perf map written for this JVM: said, with the command that writes one.
  EXPECT_NE(slurp(err).find("wrote no perf map"), std::string::npos) << slurp(err);
  EXPECT_NE(slurp(err).find("`jcmd " + std::to_string(t->pid()) + " Compiler.perfmap`"),
            std::string::npos)
      << slurp(err);
  const std::vector<__u32> held = hearth::testing_support::programs_held(h, "hearth_jvm_new");
  ASSERT_EQ(held.size(), 1u) << slurp(err);
  EXPECT_EQ(memory_byte(t->pid(), site), 0xcc) << "no breakpoint at object__alloc's site";
  kill(h, SIGKILL);
  int status = 0;
  waitpid(h, &status, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !hearth::testing_support::program_exists(held[0]) && memory_byte(t->pid(), site) == 0x90;
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "program " << held[0] << " loaded, or the site's byte "
                    << memory_byte(t->pid(), site) << " not back to 0x90";
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(kill(t->pid(), 0), 0);
}

}  // namespace
