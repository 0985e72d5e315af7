// The perf-map reader (JIT code names): the format as runtimes write it, later lines replacing
// earlier ones for the same addresses, and a map that grows while hearth reads it.
#include "collectors/stacks/perf_map.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/unit/temp_dir.h"

namespace hearth::stacks {
namespace {

// Lines as Node 20 (--perf-basic-prof) and Java (jcmd Compiler.perfmap) write them.
constexpr const char* kRecorded =
    "324753c09fc6 2a JS:~fibonacciWork /tmp/hot.js:1:23\n"
    "7f033c005b80 180 JS:*fibonacciWork /tmp/hot.js:1:23\n"
    "0x00007f1a2d0b1a40 0x0000000000000160 Hot::fib(int)\n"
    "7f033c006000 40 Builtin:ArgumentsAdaptorTrampoline\n";

TEST(JitSymbols, ReadsWhatRuntimesWrite) {
  JitSymbols j;
  j.add_text(kRecorded);
  EXPECT_EQ(j.size(), 4u);
  EXPECT_EQ(j.bad_lines(), 0u);
  ASSERT_NE(j.lookup(0x324753c09fc6), nullptr);
  EXPECT_EQ(*j.lookup(0x324753c09fc6), "JS:~fibonacciWork /tmp/hot.js:1:23");
  EXPECT_EQ(*j.lookup(0x324753c09fc6 + 0x29), "JS:~fibonacciWork /tmp/hot.js:1:23");
  EXPECT_EQ(j.lookup(0x324753c09fc6 + 0x2a), nullptr);  // one past its end
  EXPECT_EQ(j.lookup(0x324753c09fc5), nullptr);
  EXPECT_EQ(*j.lookup(0x7f1a2d0b1a40 + 0x100), "Hot::fib(int)");
  EXPECT_EQ(*j.lookup(0x7f033c006010), "Builtin:ArgumentsAdaptorTrampoline");
}

TEST(JitSymbols, LaterLinesReplaceEarlierOnesWhereTheyOverlap) {
  JitSymbols j;
  j.add_text("1000 100 old\n");
  j.add_text("1040 20 new\n");  // inside: old is split around it
  EXPECT_EQ(*j.lookup(0x1000), "old");
  EXPECT_EQ(*j.lookup(0x1045), "new");
  EXPECT_EQ(*j.lookup(0x1060), "old");
  EXPECT_EQ(*j.lookup(0x10ff), "old");
  j.add_text("f00 180 wide\n");  // covers old's first part and new, and part of old's rest
  EXPECT_EQ(*j.lookup(0x1045), "wide");
  EXPECT_EQ(*j.lookup(0x107f), "wide");
  EXPECT_EQ(*j.lookup(0x1080), "old");
  EXPECT_EQ(j.lookup(0x1100), nullptr);
}

TEST(JitSymbols, BadLinesAreSkippedAndCounted) {
  JitSymbols j;
  j.add_text("zz 10 bad hex\n1000 0 empty\n1000 10\n\n2000 10 ok\r\nffffffffffffffff 10 wraps\n");
  EXPECT_EQ(j.size(), 1u);
  EXPECT_EQ(j.bad_lines(), 4u);
  EXPECT_EQ(*j.lookup(0x2000), "ok");
}

TEST(PerfMap, ReadsTheFileAgainWhenItGrows) {
  testing_support::TempDir dir;
  const std::string path = dir.path() + "/perf-1.map";
  PerfMap map(path);
  EXPECT_EQ(map.lookup(0x1000), nullptr);  // not written yet
  EXPECT_FALSE(map.found());
  { std::ofstream(path) << "1000 10 first\n2000 10 half-writ"; }  // a line still being written
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_NE(map.lookup(0x1000), nullptr);
  EXPECT_EQ(*map.lookup(0x1000), "first");
  EXPECT_EQ(map.lookup(0x2000), nullptr);  // not until its line is whole
  const uint64_t generation = map.generation();
  { std::ofstream(path, std::ios::app) << "ten\n3000 10 third\n"; }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_NE(map.lookup(0x3000), nullptr);
  EXPECT_EQ(*map.lookup(0x2000), "half-written");
  EXPECT_GT(map.generation(), generation);
}

TEST(PerfMap, NamedByThePidInsideTheTargetsNamespace) {
  const std::string self = std::to_string(getpid());
  // Not in a container here: the pid inside is the pid outside.
  EXPECT_EQ(PerfMap::path_for(getpid()), "/proc/" + self + "/root/tmp/perf-" + self + ".map");
}

}  // namespace
}  // namespace hearth::stacks
