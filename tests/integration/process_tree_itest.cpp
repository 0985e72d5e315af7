// `hearth stacks` over several processes (collectors/stacks/process_set.h): -p many, --children
// (a child forked during the window joins it), --comm by title, a child that exits mid-window
// (said once, let go: its parent reaps it while hearth runs), roots carrying the process, and
// nothing left traced. tree_target is the tree: a parent, two single-threaded children and a
// multi-threaded one. Both capture methods. Needs root.
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"
#include "tests/integration/tree_support.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::exited_with;
using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;
using namespace hearth::testing_support::tree;

class ProcessTree : public ::testing::TestWithParam<std::string> {};

// -p PARENT --children: every process of the tree under its own root, the multi-threaded one's
// threads under it; a child forked during the window joins; one that exits is said once and its
// parent reaps it while hearth still runs (nothing of it held); nothing traced afterwards.
TEST_P(ProcessTree, ChildrenJoinAndLeave) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  ASSERT_EQ(t.pool_threads.size(), 2u);
  const std::string dir = ::testing::TempDir();
  const std::string out = dir + "/hearth-tree-" + GetParam() + ".folded";
  const std::string err = dir + "/hearth-tree-" + GetParam() + ".err";
  const pid_t parent = t.target->pid();
  pid_t hearth = start_hearth({"stacks", "-p", std::to_string(parent), "--children", "-d", "4",
                               "-F", "20", "--method", GetParam(), "-o", out},
                              err);
  ASSERT_TRUE(holds(hearth, GetParam(), {parent, t.alpha, t.titled, t.pool}));
  auto send = [&](const char* cmd) { (void)::write(t.target->stdin_fd(), cmd, std::strlen(cmd)); };
  send("fork\n");
  auto late_line = t.target->read_line(20s);
  ASSERT_TRUE(late_line && late_line->rfind("late ", 0) == 0);
  const pid_t late = std::stoi(late_line->substr(5));
  std::this_thread::sleep_for(500ms);
  send("exit\n");
  auto exited_line = t.target->read_line(20s);  // its parent reaped it: hearth holds nothing
  ASSERT_TRUE(exited_line);
  EXPECT_EQ(*exited_line, "exited " + std::to_string(t.alpha));
  int status = 0;
  ASSERT_EQ(waitpid(hearth, &status, 0), hearth);
  const std::string errors = slurp(err);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << errors;
  const std::vector<std::string> stacks = stacks_of(slurp(out));
  const std::string comm = "tree_target-fp";
  auto root = [](const std::string& name, pid_t pid) {
    return "[" + name + " pid=" + std::to_string(pid) + "]";
  };
  EXPECT_TRUE(has_stack(stacks, root(comm, parent), "parent_wait")) << errors;
  EXPECT_TRUE(has_stack(stacks, root(comm, t.alpha), "alpha_wait"));
  EXPECT_TRUE(has_stack(stacks, root("titled-child", t.titled), "titled_wait"));
  EXPECT_TRUE(has_stack(stacks,
                        root(comm, t.pool) + ";[" + comm + " tid=" + std::to_string(t.pool) + "]",
                        "pool_main_wait"));
  for (pid_t tid : t.pool_threads) {
    EXPECT_TRUE(has_stack(
        stacks,
        root(comm, t.pool) + ";[" + comm + ":pool_thread_wait tid=" + std::to_string(tid) + "]",
        "pool_thread_wait"))
        << tid;
  }
  EXPECT_TRUE(has_stack(stacks, root(comm, late), "late_wait"));
  // No single-threaded process has a thread root under it.
  for (const std::string& s : stacks) {
    if (s.rfind(root(comm, t.pool), 0) == 0) continue;
    EXPECT_EQ(s.find(" tid="), std::string::npos) << s;
  }
  EXPECT_EQ(occurrences(errors, "process " + std::to_string(late) + " (" + comm + ") joined at"),
            1u)
      << errors;
  EXPECT_EQ(
      occurrences(errors, "process " + std::to_string(t.alpha) + " (" + comm + ") exited after"),
      1u)
      << errors;
  EXPECT_NE(errors.find("hearth stacks: 5 processes (1 joined, 1 exited during the run)"),
            std::string::npos)
      << errors;
  for (pid_t p : {parent, t.titled, t.pool, late}) EXPECT_TRUE(untraced(p)) << p;
}

// --comm selects by title: only the child that rewrote its argv, under its own root, with
// --title its title as the frame under it.
TEST_P(ProcessTree, CommSelectsByTitle) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  HearthRun r = run_hearth({"stacks", "--comm", "^tree-titled: worker", "--title", "-n", "3", "-F",
                            "20", "--method", GetParam(), "-o", "-"});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  const std::vector<std::string> stacks = stacks_of(r.out);
  ASSERT_FALSE(stacks.empty());
  const std::string root = "[titled-child pid=" + std::to_string(t.titled) + "]";
  for (const std::string& s : stacks) {
    EXPECT_EQ(s.rfind(root + ";[tree-titled: worker waiting];", 0), 0u) << s;
  }
  EXPECT_TRUE(has_stack(stacks, root, "titled_wait"));
  EXPECT_NE(r.err.find("hearth stacks: 1 process: 3 samples"), std::string::npos) << r.err;
  EXPECT_TRUE(untraced(t.titled));
}

// Several -p: those processes and no other; the multi-threaded one's threads under it.
TEST_P(ProcessTree, SeveralPids) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  HearthRun r = run_hearth({"stacks", "-p", std::to_string(t.alpha), "-p", std::to_string(t.pool),
                            "-n", "2", "--method", GetParam(), "-o", "-"});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  const std::vector<std::string> stacks = stacks_of(r.out);
  const std::string alpha = "[tree_target-fp pid=" + std::to_string(t.alpha) + "]";
  const std::string pool = "[tree_target-fp pid=" + std::to_string(t.pool) + "]";
  EXPECT_TRUE(has_stack(stacks, alpha, "alpha_wait")) << r.out;
  EXPECT_TRUE(has_stack(stacks, pool, "pool_thread_wait")) << r.out;
  for (const std::string& s : stacks) {
    EXPECT_TRUE(s.rfind(alpha + ";", 0) == 0 || s.rfind(pool + ";", 0) == 0) << s;
  }
  EXPECT_TRUE(untraced(t.alpha));
  EXPECT_TRUE(untraced(t.pool));
}

INSTANTIATE_TEST_SUITE_P(Methods, ProcessTree, ::testing::Values("bpf", "ptrace"));

// A selection that matches nothing: one line, exit 2, nothing written.
TEST(ProcessSelection, NothingMatchesIsOneLine) {
  HearthRun r = run_hearth({"stacks", "--comm", "^no-such-process-name-[0-9]{12}$", "-n", "1"});
  EXPECT_TRUE(exited_with(r, 2)) << r.err;
  EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("no process matches --comm"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
