// A process set of many single-threaded processes (`--children` of fanout_target's parent, which
// forked 50 children) is taken whole in one snapshot: every process under its own root, each
// child asleep in the function its parity names, beneath the function that called it, and
// nothing left traced. Both capture methods. With bpf the whole set is one pass of one shared
// capture (collectors/stacks/process_set.h). Needs root.
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"
#include "tests/integration/tree_support.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::exited_with;
using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;
using hearth::testing_support::Target;
using hearth::testing_support::tree::occurrences;
using hearth::testing_support::tree::stacks_of;
using hearth::testing_support::tree::untraced;

constexpr int kFanoutChildren = 50;

class ProcessSetScale : public ::testing::TestWithParam<std::string> {};

TEST_P(ProcessSetScale, ManyChildrenInOneSnapshot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto target = Target::start("fanout_target-fp", {"--children", std::to_string(kFanoutChildren)});
  ASSERT_TRUE(target);
  std::map<pid_t, int> children;  // pid -> index
  for (;;) {
    auto line = target->read_line(20s);
    ASSERT_TRUE(line);
    if (*line == "end") break;
    std::istringstream in(*line);
    std::string what;
    pid_t pid = 0;
    int index = -1;
    in >> what >> pid >> index;
    if (what == "child") children[pid] = index;
  }
  ASSERT_EQ(children.size(), static_cast<size_t>(kFanoutChildren));
  const pid_t parent = target->pid();
  HearthRun r = run_hearth({"stacks", "--children", "-p", std::to_string(parent), "-n", "1",
                            "--method", GetParam(), "-o", "-"});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_NE(
      r.err.find("hearth stacks: " + std::to_string(kFanoutChildren + 1) + " processes: 1 sample"),
      std::string::npos)
      << r.err;
  // One line per process (each has one thread, asleep: one stack, counted once).
  std::map<std::string, std::string> by_root;
  for (const std::string& s : stacks_of(r.out)) {
    const std::string root = s.substr(0, s.find(';'));
    EXPECT_FALSE(by_root.contains(root)) << "two stacks under " << root;
    by_root[root] = s;
  }
  EXPECT_EQ(by_root.size(), static_cast<size_t>(kFanoutChildren + 1)) << r.out;
  const std::string comm = "fanout_target-f";  // the comm: 15 characters
  auto root = [&comm](pid_t pid) { return "[" + comm + " pid=" + std::to_string(pid) + "]"; };
  ASSERT_TRUE(by_root.contains(root(parent))) << r.out;
  EXPECT_NE(by_root[root(parent)].find(";main;fanout_parent_wait;"), std::string::npos)
      << by_root[root(parent)];
  for (const auto& [pid, index] : children) {
    SCOPED_TRACE(pid);
    ASSERT_TRUE(by_root.contains(root(pid)));
    const std::string wait = index % 2 == 0 ? "fanout_even_wait" : "fanout_odd_wait";
    EXPECT_NE(by_root[root(pid)].find(";main;fanout_child_main;" + wait + ";"), std::string::npos)
        << by_root[root(pid)];
    EXPECT_TRUE(untraced(pid));
  }
  EXPECT_TRUE(untraced(parent));
  EXPECT_EQ(occurrences(r.err, " joined at "), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Methods, ProcessSetScale, ::testing::Values("bpf", "ptrace"));

}  // namespace
