// What the samplers of a process set share: one loaded capture program (each target attaches an
// iterator link of its own to it), and the names a Symbolizer found for an address of a file,
// which another Symbolizer of the same file and options answers from without reading the file's
// DWARF again.
#include <sys/types.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "collectors/proc/maps.h"
#include "collectors/proc/threads.h"
#include "collectors/stacks/capture_bpf.h"
#include "collectors/stacks/symbolizer.h"
#include "tests/integration/target_process.h"

namespace {

using hearth::stacks::BpfCapture;
using hearth::stacks::BpfThread;
using hearth::stacks::Frame;
using hearth::stacks::Symbolizer;
using hearth::stacks::SymbolizerOptions;
using hearth::testing_support::Target;
using namespace std::chrono_literals;

// The tids one pass of CAPTURE visited.
std::set<pid_t> shared_pass_tids(BpfCapture& capture) {
  std::set<pid_t> tids;
  auto visited = capture.pass([&](const BpfThread& t) { tids.insert(t.tid); });
  EXPECT_TRUE(visited) << visited.error().message;
  return tids;
}

std::set<pid_t> shared_threads_of(pid_t pid) {
  auto tids = hearth::proc::list_threads(pid);
  EXPECT_TRUE(tids);
  return tids ? std::set<pid_t>(tids->begin(), tids->end()) : std::set<pid_t>{};
}

// Two targets, one program: the second capture attaches to the first's program, each pass
// visits its own target's threads only, and once both are closed nothing is kept (the next
// capture loads the program again).
TEST(SharedCapture, TargetsShareOneLoadedProgram) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto a = Target::start("stack_target-fp", {"--threads", "3", "--depth", "4", "--spin", "0"});
  auto b = Target::start("stack_target-fp", {"--threads", "5", "--depth", "4", "--spin", "0"});
  ASSERT_TRUE(a && b);
  const size_t before = BpfCapture::programs_loaded();
  {
    auto first = BpfCapture::open({.pid = a->pid(), .threads_hint = 6});
    if (!first) GTEST_SKIP() << first.error().message;
    EXPECT_EQ(BpfCapture::programs_loaded(), before + 1);
    auto second = BpfCapture::open({.pid = b->pid(), .threads_hint = 8});
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(BpfCapture::programs_loaded(), before + 1) << "the second target loaded its own";
    for (int round = 0; round < 2; ++round) {
      SCOPED_TRACE(round);
      EXPECT_EQ(shared_pass_tids(*first), shared_threads_of(a->pid()));
      EXPECT_EQ(shared_pass_tids(*second), shared_threads_of(b->pid()));
    }
  }
  auto again = BpfCapture::open({.pid = b->pid(), .threads_hint = 8});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(BpfCapture::programs_loaded(), before + 2) << "a program outlived its captures";
  EXPECT_EQ(shared_pass_tids(*again), shared_threads_of(b->pid()));
}

// A set's capture: one pass visits the threads of the processes added, each record naming its
// process, and no other; a process removed is in no later pass.
TEST(SharedCapture, SetPassVisitsItsProcessesOnly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto a = Target::start("stack_target-fp", {"--threads", "3", "--depth", "4", "--spin", "0"});
  auto b = Target::start("stack_target-fp", {"--threads", "5", "--depth", "4", "--spin", "0"});
  ASSERT_TRUE(a && b);
  auto set = BpfCapture::open({.set = true});
  if (!set) GTEST_SKIP() << set.error().message;
  EXPECT_TRUE(shared_pass_tids(*set).empty()) << "an empty set visits nothing";
  ASSERT_TRUE(set->add_process(a->pid()));
  ASSERT_TRUE(set->add_process(b->pid()));
  std::set<pid_t> both = shared_threads_of(a->pid());
  both.merge(shared_threads_of(b->pid()));
  std::set<pid_t> tids;
  auto visited = set->pass([&](const BpfThread& t) {
    EXPECT_FALSE(t.child());
    EXPECT_TRUE(t.tgid == a->pid() || t.tgid == b->pid()) << t.tgid;
    EXPECT_TRUE(shared_threads_of(t.tgid).contains(t.tid)) << t.tid << " not of " << t.tgid;
    tids.insert(t.tid);
  });
  ASSERT_TRUE(visited) << visited.error().message;
  EXPECT_EQ(tids, both);
  set->remove_process(a->pid());
  EXPECT_EQ(shared_pass_tids(*set), shared_threads_of(b->pid()));
}

// With report_children, a pass reports each process whose parent is in the set and which is
// not in it itself, once, by its main thread; a child in the set is visited as a member.
TEST(SharedCapture, SetPassReportsNewChildren) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto tree = Target::start("fanout_target-fp", {"--children", "3"});
  ASSERT_TRUE(tree);
  std::vector<pid_t> kids;
  for (auto line = tree->read_line(20s); line && *line != "end"; line = tree->read_line(20s)) {
    if (line->rfind("child ", 0) == 0) kids.push_back(std::stoi(line->substr(6)));
  }
  ASSERT_EQ(kids.size(), 3u);
  auto set = BpfCapture::open({.set = true, .report_children = true});
  if (!set) GTEST_SKIP() << set.error().message;
  ASSERT_TRUE(set->add_process(tree->pid()));
  ASSERT_TRUE(set->add_process(kids[0]));
  std::multiset<pid_t> reported;
  std::set<pid_t> members;
  auto visited = set->pass([&](const BpfThread& t) {
    if (t.child()) {
      EXPECT_EQ(t.tid, t.tgid);
      EXPECT_EQ(t.parent_tgid, tree->pid());
      reported.insert(t.tgid);
    } else {
      members.insert(t.tgid);
    }
  });
  ASSERT_TRUE(visited) << visited.error().message;
  EXPECT_EQ(reported, (std::multiset<pid_t>{kids[1], kids[2]}));
  EXPECT_EQ(members, (std::set<pid_t>{tree->pid(), kids[0]}));
}

// A function of this test, looked up by a second Symbolizer of the same process and options:
// the same frames, from the first one's names; other options resolve on their own.
__attribute__((noinline)) int shared_names_probe(int x) {
  asm volatile("" ::: "memory");
  return x + 1;
}

TEST(SharedCapture, SymbolizersOfOneFileShareTheirNames) {
  auto maps = hearth::proc::read_maps(getpid());
  ASSERT_TRUE(maps) << maps.error().message;
  const uint64_t ip = reinterpret_cast<uint64_t>(&shared_names_probe) + 1;
  auto make = [&](SymbolizerOptions options) {
    auto s = Symbolizer::create(options);
    EXPECT_TRUE(s);
    EXPECT_TRUE(s->set_maps(getpid(), *maps));
    return std::move(*s);
  };
  // A debuginfo path of its own: no other test's Symbolizer has these options.
  SymbolizerOptions options;
  options.debuginfo_path = ::testing::TempDir() + "/shared-names-none";
  Symbolizer first = make(options);
  const std::vector<Frame> named = first.symbolize(ip, false);
  ASSERT_FALSE(named.empty());
  EXPECT_NE(named.front().name.find("shared_names_probe"), std::string::npos) << named.front().name;
  EXPECT_EQ(first.stats().shared_hits, 0u);

  Symbolizer second = make(options);
  const std::vector<Frame>& again = second.symbolize(ip, false);
  ASSERT_EQ(again.size(), named.size());
  for (size_t i = 0; i < named.size(); ++i) {
    EXPECT_EQ(again[i].name, named[i].name);
    EXPECT_EQ(again[i].inlined, named[i].inlined);
  }
  EXPECT_EQ(second.stats().shared_hits, 1u);

  options.parameters = !options.parameters;
  Symbolizer other = make(options);
  (void)other.symbolize(ip, false);
  EXPECT_EQ(other.stats().shared_hits, 0u) << "names of other options were shared";
}

}  // namespace
