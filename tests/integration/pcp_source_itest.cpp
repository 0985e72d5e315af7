// `hearth watch`'s `pcp:` signals (watch/pcp_source.h) against a real pmcd (Debian's pcp): the
// test starts its own, private one (its namespace merged from the pmcd and linux PMDAs' parts,
// the PMDAs loaded as DSOs, a unix socket and a loopback port of its own, everything in the
// test's directory), so it neither needs nor disturbs a pmcd the host runs.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "watch/pcp_source.h"

namespace hearth::watch {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kPmcd = "/usr/lib/pcp/bin/pmcd";
constexpr const char* kPmnsMerge = "/usr/lib/pcp/bin/pmnsmerge";
constexpr const char* kPmns = "/var/lib/pcp/pmns";
constexpr const char* kPmdas = "/var/lib/pcp/pmdas";

// Runs ARGV with its output appended to LOG; with RUN_DIR, PCP's run directory (where pmcd
// keeps its pid file) is that one, not the host's.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::string& run_dir = "") {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!run_dir.empty()) setenv("PCP_RUN_DIR", run_dir.c_str(), 1);
    std::FILE* out = std::freopen(log.c_str(), "a", stdout);
    if (out != nullptr) dup2(fileno(out), 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int run(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = spawn(argv, log);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class PcpSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (pmcd's PMDAs run as root here)";
    for (const char* tool : {kPmcd, kPmnsMerge}) {
      ASSERT_EQ(access(tool, X_OK), 0) << "no " << tool << " (Debian's pcp; bin/setup installs it)";
    }
    dir_ = ::testing::TempDir() + "/pcp";
    fs::create_directories(dir_);
    log_ = dir_ + "/tools.log";
    ASSERT_EQ(run({kPmnsMerge, std::string(kPmns) + "/root_pmcd",
                   std::string(kPmns) + "/root_linux", dir_ + "/root"},
                  log_),
              0)
        << slurp(log_);
    std::ofstream(dir_ + "/pmcd.conf")
        << "pmcd\t2\tdso\tpmcd_init\t" << kPmdas << "/pmcd/pmda_pmcd.so\n"
        << "linux\t60\tdso\tlinux_init\t" << kPmdas << "/linux/pmda_linux.so\n";
    socket_ = dir_ + "/pmcd.socket";
    // A loopback port of its own (pmcd always listens on one): another pmcd on it makes this one
    // exit, and the next port is tried.
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 5 && pmcd_ <= 0; ++attempt) {
      const int port = 42000 + static_cast<int>(rng() % 20000);
      const pid_t pid = spawn({kPmcd, "-f", "-i", "127.0.0.1", "-p", std::to_string(port), "-n",
                               dir_ + "/root", "-c", dir_ + "/pmcd.conf", "-s", socket_, "-l",
                               dir_ + "/pmcd.log", "-x", dir_ + "/pmcd.err", "-U", "root"},
                              log_, dir_);
      ASSERT_GT(pid, 0);
      // Ready when a client connects through its socket (a generous bound, not a timing).
      for (int wait = 0; wait < 200; ++wait) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) break;  // exited: a port taken; try another
        if (fs::exists(socket_) && PcpSource::connect(host())) {
          pmcd_ = pid;
          break;
        }
        std::this_thread::sleep_for(50ms);
      }
      if (pmcd_ <= 0 && kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
    ASSERT_GT(pmcd_, 0) << "pmcd did not start: " << slurp(dir_ + "/pmcd.log") << slurp(log_);
  }

  void TearDown() override {
    if (pmcd_ > 0) {
      kill(pmcd_, SIGTERM);
      waitpid(pmcd_, nullptr, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string host() const { return "unix:" + socket_; }

  std::string dir_, log_, socket_;
  pid_t pmcd_ = 0;
};

TEST_F(PcpSourceTest, MetricsInstancesAndCountersAsRules) {
  auto src = PcpSource::connect(host());
  ASSERT_TRUE(src) << src.error().message;
  auto load_1 = src->add("kernel.all.load", "1 minute");
  ASSERT_TRUE(load_1) << load_1.error().message;
  auto load_all = src->add("kernel.all.load", "");
  ASSERT_TRUE(load_all) << load_all.error().message;
  auto cpu_user = src->add("kernel.all.cpu.user", "");  // a counter: a rate
  ASSERT_TRUE(cpu_user) << cpu_user.error().message;
  auto nprocs = src->add("kernel.all.nprocs", "");
  ASSERT_TRUE(nprocs) << nprocs.error().message;

  auto first = src->fetch(0);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->size(), 4u);
  ASSERT_EQ((*first)[*load_1].size(), 1u);
  EXPECT_GE((*first)[*load_1][0], 0);
  EXPECT_EQ((*first)[*load_all].size(), 3u);  // 1, 5 and 15 minutes
  EXPECT_TRUE((*first)[*cpu_user].empty()) << "a counter has no rate at its first fetch";
  ASSERT_EQ((*first)[*nprocs].size(), 1u);
  EXPECT_GE((*first)[*nprocs][0], 1);

  // Something to count: user time, so the counter moves between fetches.
  const auto until = std::chrono::steady_clock::now() + 200ms;
  volatile uint64_t spin = 0;
  while (std::chrono::steady_clock::now() < until) spin = spin + 1;
  auto second = src->fetch(1'000'000'000);  // the caller's clock: one second later
  ASSERT_TRUE(second) << second.error().message;
  ASSERT_EQ((*second)[*cpu_user].size(), 1u);
  EXPECT_GE((*second)[*cpu_user][0], 0);
}

TEST_F(PcpSourceTest, BadMetricsAreOneClearLineEach) {
  auto src = PcpSource::connect(host());
  ASSERT_TRUE(src) << src.error().message;
  auto unknown = src->add("kernel.all.nosuch", "");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message.rfind("pcp:kernel.all.nosuch: no such metric on " + host(), 0),
            0u)
      << unknown.error().message;
  auto instance = src->add("kernel.all.load", "2 minute");
  ASSERT_FALSE(instance);
  EXPECT_EQ(instance.error().message,
            "pcp:kernel.all.load: no instance named '2 minute' on " + host());
  auto scalar = src->add("kernel.all.nprocs", "x");
  ASSERT_FALSE(scalar);
  EXPECT_EQ(scalar.error().message, "pcp:kernel.all.nprocs: has no instances, so not [x]");
  auto text = src->add("kernel.uname.release", "");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message,
            "pcp:kernel.uname.release: not a number (a rule compares numbers)");
  for (const auto* e : {&unknown, &instance, &scalar, &text})
    EXPECT_EQ(e->error().message.find('\n'), std::string::npos);
  // The valid ones still fetch after the bad ones.
  ASSERT_TRUE(src->add("kernel.all.load", "5 minute"));
  auto values = src->fetch(0);
  ASSERT_TRUE(values) << values.error().message;
  EXPECT_EQ((*values)[0].size(), 1u);
}

TEST_F(PcpSourceTest, NoPmcdIsOneClearLine) {
  auto src = PcpSource::connect("unix:" + dir_ + "/nobody.socket");
  ASSERT_FALSE(src);
  EXPECT_EQ(
      src.error().message.rfind("cannot reach PCP's pmcd on unix:" + dir_ + "/nobody.socket: ", 0),
      0u)
      << src.error().message;
  EXPECT_NE(src.error().message.find("(is pmcd running?)"), std::string::npos);
  EXPECT_EQ(src.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace hearth::watch
