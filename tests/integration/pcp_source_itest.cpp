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
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/private_pmcd.h"
#include "watch/pcp_source.h"

namespace hearth::watch {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kLinuxPmda = "/var/lib/pcp/pmdas/linux/pmda_linux.so";

class PcpSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (pmcd's PMDAs run as root here)";
    for (const char* tool : {testing_support::PrivatePmcd::kPmcd,
                             testing_support::PrivatePmcd::kPmnsMerge}) {
      ASSERT_EQ(access(tool, X_OK), 0) << "no " << tool << " (Debian's pcp; bin/setup installs it)";
    }
    dir_ = ::testing::TempDir() + "/pcp";
    ASSERT_EQ(pmcd_.start(dir_, {{"linux", 60, "linux_init", kLinuxPmda}}), "");
  }

  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string host() const { return "unix:" + pmcd_.socket(); }

  std::string dir_;
  testing_support::PrivatePmcd pmcd_;
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
