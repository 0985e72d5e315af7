// Which processes `hearth stacks` takes (process_select.h) from a table of processes, how their
// roots are named (roots.h, formats/folded.h), the title read from cmdline bytes, and the
// options checked alone (validate_stacks).
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bin/hearth/cmd_stacks.h"
#include "collectors/proc/process_select.h"
#include "collectors/proc/processes.h"
#include "collectors/stacks/roots.h"
#include "formats/folded.h"

namespace hearth::stacks {
namespace {

// The selection (collectors/proc) as the stack sampler takes it.
using namespace hearth::proc;

// A host: init (1) - kthreadd (2) and a kernel worker (3); a postmaster (100) with backends
// (101, 102), one of which forked 103; a zombie child (104); an unrelated shell (200) with its
// own child (201); hearth itself (300).
std::vector<ProcessInfo> host() {
  return {
      {.pid = 1, .ppid = 0, .state = 'S', .comm = "init", .title = "/sbin/init"},
      {.pid = 2, .ppid = 0, .state = 'S', .comm = "kthreadd", .title = ""},
      {.pid = 3, .ppid = 2, .state = 'I', .comm = "kworker/0:1", .title = ""},
      {.pid = 100,
       .ppid = 1,
       .state = 'S',
       .comm = "postgres",
       .title = "/usr/lib/postgresql/15/bin/postgres -D /data"},
      {.pid = 101,
       .ppid = 100,
       .state = 'S',
       .comm = "postgres",
       .title = "postgres: bench bench [local] UPDATE waiting"},
      {.pid = 102,
       .ppid = 100,
       .state = 'S',
       .comm = "postgres",
       .title = "postgres: checkpointer"},
      {.pid = 103, .ppid = 101, .state = 'S', .comm = "sh", .title = "sh -c archive"},
      {.pid = 104, .ppid = 100, .state = 'Z', .comm = "postgres", .title = ""},
      {.pid = 200, .ppid = 1, .state = 'S', .comm = "bash", .title = "-bash"},
      {.pid = 201, .ppid = 200, .state = 'S', .comm = "psql", .title = "psql bench"},
      {.pid = 300,
       .ppid = 200,
       .state = 'R',
       .comm = "hearth",
       .title = "hearth stacks --comm postgres"},
  };
}

ProcessSelection pids(std::vector<pid_t> p, bool children = false) {
  ProcessSelection s;
  s.pids = std::move(p);
  s.children = children;
  return s;
}

ProcessSelection comm(const char* pattern, bool children = false) {
  ProcessSelection s;
  s.comm = *Pattern::compile(pattern);
  s.children = children;
  return s;
}

using Pids = std::vector<pid_t>;

TEST(ProcessSelect, PidsAloneAreThemselves) {
  EXPECT_EQ(select_processes(host(), pids({101, 200}), {}, 300), (Pids{101, 200}));
  EXPECT_EQ(select_processes(host(), pids({999}), {}, 300), Pids{});  // not on the host
  EXPECT_FALSE(selection_grows(pids({101})));
}

TEST(ProcessSelect, ChildrenAreEveryDescendantButZombies) {
  EXPECT_EQ(select_processes(host(), pids({100}, true), {}, 300), (Pids{100, 101, 102, 103}));
  EXPECT_EQ(select_processes(host(), pids({101}, true), {}, 300), (Pids{101, 103}));
  EXPECT_TRUE(selection_grows(pids({100}, true)));
  // A child whose parent is gone stays while it was taken (a member), and so do its children.
  std::vector<ProcessInfo> orphaned = host();
  std::erase_if(orphaned, [](const ProcessInfo& p) { return p.pid == 101; });
  orphaned[5].ppid = 1;  // 103, re-parented to init
  ASSERT_EQ(orphaned[5].pid, 103);
  EXPECT_EQ(select_processes(orphaned, pids({100}, true), {100, 102, 103}, 300),
            (Pids{100, 102, 103}));
}

TEST(ProcessSelect, CommMatchesNameOrTitleNeverHearthNorKernelThreads) {
  // "postgres" is in 100's, 101's and 102's comm (104 is a zombie) and in hearth's title.
  EXPECT_EQ(select_processes(host(), comm("postgres"), {}, 300), (Pids{100, 101, 102}));
  // By title only: backends waiting on a lock.
  EXPECT_EQ(select_processes(host(), comm("UPDATE waiting$"), {}, 300), Pids{101});
  EXPECT_EQ(select_processes(host(), comm("^psql$"), {}, 300), Pids{201});
  EXPECT_EQ(select_processes(host(), comm("kworker|kthreadd"), {}, 300), Pids{});
  // With children: the matches' descendants too.
  EXPECT_EQ(select_processes(host(), comm("UPDATE", true), {}, 300), (Pids{101, 103}));
  // A member whose title no longer matches stays.
  EXPECT_EQ(select_processes(host(), comm("UPDATE"), {102}, 300), (Pids{101, 102}));
  ProcessInfo p{.pid = 7, .ppid = 1, .state = 'S', .comm = "nginx", .title = ""};
  EXPECT_TRUE(name_matches(p, *Pattern::compile("^nginx$")));
  p.title = "nginx: worker process";
  EXPECT_TRUE(name_matches(p, *Pattern::compile("worker process")));
  EXPECT_FALSE(name_matches(p, *Pattern::compile("master")));
}

TEST(ProcessSelect, CommOfAStatLine) {
  EXPECT_EQ(comm_of_stat("42 (postgres) S 1 42 42 0"), "postgres");
  EXPECT_EQ(comm_of_stat("42 (a) b) (c) S 1"), "a) b) (c");
  EXPECT_EQ(comm_of_stat("garbage"), "");
}

TEST(ProcessTitle, CmdlineBytesAsPsShowsThem) {
  using proc::parse_cmdline;
  EXPECT_EQ(parse_cmdline(std::string("/usr/bin/app\0-c\0x y\0", 21)), "/usr/bin/app -c x y");
  // A rewritten title, padded with NULs (PostgreSQL) or blanks.
  EXPECT_EQ(parse_cmdline(std::string("postgres: bench UPDATE waiting\0\0\0\0", 34)),
            "postgres: bench UPDATE waiting");
  EXPECT_EQ(parse_cmdline("nginx: worker process      "), "nginx: worker process");
  EXPECT_EQ(parse_cmdline(""), "");
  EXPECT_EQ(parse_cmdline("a\tb\nc"), "a?b?c");
  std::string long_line(10000, 'x');
  std::string cut = parse_cmdline(long_line);
  EXPECT_EQ(cut.size(), proc::kMaxTitleBytes);
  EXPECT_TRUE(cut.ends_with("..."));
  // Cut between characters, not inside one: "é" is 2 bytes.
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xc3\xa9";
  cut = parse_cmdline(accents);
  EXPECT_LE(cut.size(), proc::kMaxTitleBytes);
  EXPECT_EQ(cut.substr(0, cut.size() - 3).size() % 2, 0u);
  EXPECT_TRUE(cut.ends_with("\xc3\xa9..."));
}

TEST(Roots, OneProcessKeepsTheThreadRoot) {
  RootParts p{.process = "app",
              .pid = 10,
              .title = "",
              .thread = "worker-1",
              .tid = 11,
              .multi_threaded = true};
  EXPECT_EQ(sample_root(p, {}), "[worker-1 tid=11]");
  EXPECT_EQ(sample_root(p, {.merge_threads = true}), "[worker-1]");
}

TEST(Roots, SeveralProcessesCarryTheProcess) {
  AggregateOptions o{.process_roots = true};
  RootParts single{.process = "postgres",
                   .pid = 26032,
                   .title = "postgres: bench UPDATE",
                   .thread = "postgres",
                   .tid = 26032,
                   .multi_threaded = false};
  EXPECT_EQ(sample_root(single, o), "[postgres pid=26032]");
  RootParts java{.process = "java",
                 .pid = 100,
                 .title = "java -jar app.jar",
                 .thread = "worker-0",
                 .tid = 101,
                 .multi_threaded = true};
  EXPECT_EQ(sample_root(java, o), "[java pid=100];[worker-0 tid=101]");
  o.title_frames = true;
  EXPECT_EQ(sample_root(single, o), "[postgres pid=26032];[postgres: bench UPDATE]");
  EXPECT_EQ(sample_root(java, o), "[java pid=100];[java -jar app.jar];[worker-0 tid=101]");
  single.title = "";  // not read (a zombie): the name stands in
  EXPECT_EQ(sample_root(single, o), "[postgres pid=26032];[postgres]");
  single.title = "a;b";
  EXPECT_EQ(sample_root(single, o), "[postgres pid=26032];[a:b]");
  o.merge_threads = true;
  o.title_frames = false;
  EXPECT_EQ(sample_root(java, o), "[java];[worker-0]");
  EXPECT_EQ(formats::process_root("x;y", 5, false), "[x:y pid=5]");
}

}  // namespace
}  // namespace hearth::stacks

namespace hearth::cli {
namespace {

bool has(const std::vector<std::string>& problems, const std::string& what) {
  return std::find(problems.begin(), problems.end(), what) != problems.end();
}

TEST(StacksArgs, ASelectorIsRequired) {
  StacksArgs a;
  EXPECT_TRUE(has(validate_stacks(a), "give -p PID (repeatable) or --comm REGEX"));
  a.children = true;
  EXPECT_TRUE(has(validate_stacks(a), "give -p PID (repeatable) or --comm REGEX"));
  a.pids = {::getpid()};
  EXPECT_TRUE(validate_stacks(a).empty());
  a.pids = {};
  a.comm = "postgres";
  EXPECT_TRUE(validate_stacks(a).empty());
}

TEST(StacksArgs, EveryPidAndThePatternAreChecked) {
  StacksArgs a;
  a.pids = {1, 0, -3};
  a.comm = "(unclosed";
  a.frequency = 0;
  std::vector<std::string> problems = validate_stacks(a);
  EXPECT_TRUE(has(problems, "-p 0 is not a process id"));
  EXPECT_TRUE(has(problems, "-p -3 is not a process id"));
  EXPECT_TRUE(std::any_of(problems.begin(), problems.end(),
                          [](const std::string& p) { return p.starts_with("--comm: "); }));
  EXPECT_TRUE(has(problems, "-F must be above 0 and at most 1000 Hz"));  // all at once
  EXPECT_EQ(problems.size(), 4u);
}

}  // namespace
}  // namespace hearth::cli
