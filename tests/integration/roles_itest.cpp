// Thread roles (collectors/stacks/thread_roles.h) end to end: `hearth stacks`, `hearth flame
// --group-threads` and `hearth record` of roles_target, whose threads are never named and
// start in functions of their own, and of a stripped copy of it. Needs root (ptrace, BPF,
// tracefs).
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::Target;

// roles_target (or a copy of it) and its threads' tids by start function.
struct Started {
  std::unique_ptr<Target> target;
  std::map<std::string, std::vector<pid_t>> tids;
};

Started start_roles(const std::string& program) {
  Started s;
  s.target = Target::start(program, {"--pool", "2"});
  if (!s.target) return s;
  for (;;) {
    auto line = s.target->read_line(10s);
    if (!line || *line == "end") break;
    const size_t space = line->find(' ');
    s.tids[line->substr(0, space)].push_back(std::stoi(line->substr(space + 1)));
  }
  return s;
}

// The root frames of a folded profile, each with its samples.
std::map<std::string, uint64_t> roots_of(const std::string& folded) {
  std::map<std::string, uint64_t> roots;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    roots[l.substr(0, l.find(';'))] += std::stoull(l.substr(l.rfind(' ') + 1));
  }
  return roots;
}

std::string thread_root(const std::string& name, pid_t tid) {
  return "[" + name + " tid=" + std::to_string(tid) + "]";
}

constexpr const char* kFunctions[] = {"ingest_main", "flush_main", "pool_main", "pause_main"};

TEST(RolesCli, UnnamedThreadsAreNamedByTheFunctionTheyStartedIn) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  for (const char* variant : {"fp", "nofp"}) {
    SCOPED_TRACE(variant);
    Started s = start_roles(std::string("roles_target-") + variant);
    ASSERT_TRUE(s.target);
    ASSERT_EQ(s.tids.size(), 4u);
    ASSERT_EQ(s.tids["pool_main"].size(), 2u);
    const std::string comm = std::string("roles_target-" + std::string(variant)).substr(0, 15);
    const std::string pid = std::to_string(s.target->pid());
    HearthRun r = run_hearth({"stacks", "-p", pid, "-n", "3", "-F", "50", "-o", "-"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    std::map<std::string, uint64_t> roots = roots_of(r.out);
    // Each thread is named by its role, std::thread's plumbing (flush_main) skipped; the main
    // thread keeps the process's name.
    for (const char* f : kFunctions) {
      for (pid_t tid : s.tids[f])
        EXPECT_EQ(roots[thread_root(comm + ":" + f, tid)], 3u) << f << r.out;
    }
    EXPECT_EQ(roots[thread_root(comm, s.target->pid())], 3u) << r.out;
    EXPECT_EQ(roots.size(), 6u) << r.out;  // nothing else: one root per thread

    // --threads raw: the kernel's names only.
    r = run_hearth({"stacks", "-p", pid, "-n", "1", "--threads", "raw", "-o", "-"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    roots = roots_of(r.out);
    EXPECT_EQ(roots.size(), 6u) << r.out;
    for (const auto& [name, n] : roots) EXPECT_EQ(name.rfind("[" + comm + " tid=", 0), 0u) << name;

    // --threads merge: one root per role, the pool's two threads in one.
    r = run_hearth({"stacks", "-p", pid, "-n", "2", "-F", "50", "--threads", "merge", "-o", "-"});
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
    roots = roots_of(r.out);
    EXPECT_EQ(roots["[" + comm + ":pool_main]"], 4u) << r.out;
    EXPECT_EQ(roots["[" + comm + ":ingest_main]"], 2u) << r.out;
    EXPECT_EQ(roots.size(), 5u) << r.out;
  }
}

// A pool of unnamed threads is one thread in `hearth flame --group-threads`.
TEST(RolesCli, GroupThreadsMergesAPoolOfUnnamedThreads) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  Started s = start_roles("roles_target-nofp");
  ASSERT_TRUE(s.target);
  const fs::path dir = fs::path(::testing::TempDir()) / "hearth-roles-group";
  fs::remove_all(dir);
  fs::create_directories(dir);
  HearthRun r = run_hearth({"stacks", "-p", std::to_string(s.target->pid()), "-n", "1", "-o",
                            (dir / "x.folded").string()});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  r = run_hearth(
      {"flame", (dir / "x.folded").string(), "--group-threads", "-o", (dir / "x.svg").string()});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  const std::string svg = slurp(dir / "x.svg");
  fs::remove_all(dir);
  // Titles are "NAME (N samples, P%)": the pool's two samples under one root.
  EXPECT_NE(svg.find("[roles_target-no:pool_main] (2 samples"), std::string::npos);
  EXPECT_NE(svg.find("[roles_target-no:pause_main] (1 samples"), std::string::npos);
  EXPECT_EQ(svg.find("pool_main tid="), std::string::npos);
}

// A stripped copy: the entry functions have no name, so a thread is named by the next frame
// that has one (a libc or libstdc++ function it called), and a thread with no named frame at
// all (pause_main: its own syscall instruction) by the process's name alone.
TEST(RolesCli, StrippedEntryFallsBackToTheNextNamedFrameThenToTheName) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const std::string copy = ::testing::TempDir() + "/roles-stripped";
  ASSERT_EQ(std::system(("cp " HEARTH_TARGETS_DIR "/roles_target-nofp " + copy +
                         " && strip --strip-all " + copy)
                            .c_str()),
            0);
  Started s = start_roles(copy);
  ASSERT_TRUE(s.target);
  HearthRun r = run_hearth(
      {"stacks", "-p", std::to_string(s.target->pid()), "-n", "2", "-F", "50", "-o", "-"});
  s.target.reset();
  std::remove(copy.c_str());
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  EXPECT_NE(r.out.find("[roles-stripped+0x"), std::string::npos) << r.out;  // really stripped
  const std::map<std::string, uint64_t> roots = roots_of(r.out);
  EXPECT_EQ(roots.count(thread_root("roles-stripped", s.tids["pause_main"].at(0))), 1u) << r.out;
  for (const char* f : {"ingest_main", "flush_main", "pool_main"}) {
    for (pid_t tid : s.tids[f]) {
      const std::string tail = " tid=" + std::to_string(tid) + "]";
      std::string found;
      for (const auto& [name, n] : roots) {
        if (name.ends_with(tail)) found = name;
      }
      SCOPED_TRACE(found);
      ASSERT_EQ(found.rfind("[roles-stripped:", 0), 0u) << f << "\n" << r.out;
      const std::string entry = found.substr(16, found.size() - 16 - tail.size());
      EXPECT_FALSE(entry.empty());
      EXPECT_EQ(entry.find("+0x"), std::string::npos);  // a named frame
      EXPECT_EQ(entry.find("unknown"), std::string::npos);
      EXPECT_EQ(entry.find(f), std::string::npos);  // its own name is gone with the symbols
      for (const char* trampoline : {"clone", "start_thread", "_M_run", "__invoke"})
        EXPECT_EQ(entry.find(trampoline), std::string::npos) << trampoline;
    }
  }
}

// `hearth record` runs both collectors: the scheduler charts and the report's threads table
// show the stack sampler's roles; the scheduler's own files keep the kernel's names.
TEST(RolesCli, RecordShowsRolesInTheChartsAndTheThreadsTable) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  Started s = start_roles("roles_target-nofp");
  ASSERT_TRUE(s.target);
  const fs::path dir = fs::path(::testing::TempDir()) / "hearth-roles-record";
  fs::remove_all(dir);
  HearthRun r = run_hearth({"record", "-p", std::to_string(s.target->pid()), "-d", "1.5", "-F",
                            "20", "-o", dir.string(), "--no-mmv"});
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  const std::string folded = slurp(dir / "stacks.folded");
  const std::string states = slurp(dir / "sched.states.tsv");
  const std::string chart = slurp(dir / "sched.svg");
  const std::string html = slurp(dir / "index.html");
  // `hearth chart DIR` on the report directory names the threads as the report does.
  HearthRun c = run_hearth({"chart", dir.string(), "-o", (dir / "again.svg").string()});
  const std::string again = slurp(dir / "again.svg");
  fs::remove_all(dir);
  ASSERT_EQ(WEXITSTATUS(c.status), 0) << c.err;
  const pid_t ingest = s.tids["ingest_main"].at(0);
  EXPECT_NE(folded.find(thread_root("roles_target-no:ingest_main", ingest)), std::string::npos);
  EXPECT_NE(states.find(std::to_string(ingest) + "\troles_target-no\t"), std::string::npos)
      << states;
  EXPECT_EQ(states.find("ingest_main"), std::string::npos);
  for (const char* f : kFunctions) {
    const std::string role = std::string("roles_target-no:") + f;
    EXPECT_NE(chart.find(role), std::string::npos) << role;
    EXPECT_NE(html.find(">" + role + "</a>"), std::string::npos) << role;
    EXPECT_NE(again.find(role), std::string::npos) << role;
  }
  // The collectors table in words.
  EXPECT_NE(html.find(" samples at 20 Hz of up to 6 threads: "), std::string::npos) << html;
  EXPECT_EQ(html.find("frequency_hz"), std::string::npos);
}

}  // namespace
