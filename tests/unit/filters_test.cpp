#include "render/profile/filters.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"

namespace hearth::profile {
namespace {

FrameTree filtered_tree(std::string_view text, Merge merge = Merge::kAll) {
  FrameTree tree(merge);
  FoldedReader reader(tree, {});
  reader.read_text(text);
  tree.finalize();
  return tree;
}

// A pattern the test knows is valid (a bad one throws, and the test fails).
Pattern pattern(const char* re) {
  return Pattern::compile(re).value();
}

FilterOptions grep(const char* re) {
  FilterOptions o;
  o.grep = pattern(re);
  return o;
}

FilterOptions only_threads(const char* re) {
  FilterOptions o;
  o.only_threads = pattern(re);
  return o;
}

FilterOptions group_threads() {
  FilterOptions o;
  o.group_threads = true;
  return o;
}

constexpr std::string_view kThreads =
    "[worker-1 tid=1];run;compute;sqrt 4\n"
    "[worker-1 tid=1];run;io;read 2\n"
    "[worker-2 tid=2];run;compute 3\n"
    "[worker-2 tid=2];run;compute;sqrt 1\n"
    "[main];main;parse 5\n"
    "[main] 1\n"
    "java-27409/28741;Interpreter;sqrt 7\n";

TEST(Filters, ThreadRoots) {
  EXPECT_TRUE(is_thread_root("[worker-12 tid=4242]"));
  EXPECT_TRUE(is_thread_root("[main]"));
  EXPECT_TRUE(is_thread_root("iperf-27409/28741"));
  EXPECT_TRUE(is_thread_root("kworker/0:1-12/12"));
  EXPECT_FALSE(is_thread_root("[unknown]"));
  EXPECT_FALSE(is_thread_root("java"));
  EXPECT_FALSE(is_thread_root("[]"));
  EXPECT_FALSE(is_thread_root("main-"));
  EXPECT_FALSE(is_thread_root("a-1/"));
  EXPECT_FALSE(is_thread_root("a-/2"));
  EXPECT_FALSE(is_thread_root("-1/2"));
  EXPECT_FALSE(is_thread_root("a-1x/2"));
  EXPECT_FALSE(is_thread_root("a-1/2x"));
}

TEST(Filters, ThreadNames) {
  EXPECT_EQ(thread_name("[worker-12 tid=4242]"), "worker-12");
  EXPECT_EQ(thread_name("[main]"), "main");
  EXPECT_EQ(thread_name("iperf-27409/28741"), "iperf");
  EXPECT_EQ(thread_name("my-app-1/2"), "my-app");
  EXPECT_EQ(thread_name("java"), "java");
}

TEST(Filters, ThreadGroups) {
  EXPECT_EQ(thread_group("[worker-12 tid=4242]"), "[worker-*]");
  EXPECT_EQ(thread_group("[main]"), "[main]");
  EXPECT_EQ(thread_group("iperf-27409/28741"), "[iperf]");
  EXPECT_EQ(thread_group("[pool-3-thread-12 tid=9]"), "[pool-*-thread-*]");
  EXPECT_EQ(thread_group("[gc 0123]"), "[gc *]");
  // Roles of unnamed threads (COMM:ENTRY): the entry function keeps its digits.
  EXPECT_EQ(thread_group("[mariadbd:tpool::worker_main tid=27618]"),
            "[mariadbd:tpool::worker_main]");
  EXPECT_EQ(thread_group("[app2:run_shard3 tid=5]"), "[app*:run_shard3]");
  EXPECT_EQ(thread_group("[app:{lambda()#2} tid=5]"), "[app:{lambda()#2}]");
  EXPECT_EQ(thread_group("[pool:12 tid=5]"), "[pool:*]");  // a name with a ':', not a role
}

TEST(Filters, Active) {
  EXPECT_FALSE(filters_active(FilterOptions{}));
  EXPECT_TRUE(filters_active(grep("x")));
  EXPECT_TRUE(filters_active(only_threads("x")));
  EXPECT_TRUE(filters_active(group_threads()));
}

TEST(Filters, GrepKeepsWholeStacksThatContainAMatch) {
  FrameTree out = apply_filters(filtered_tree(kThreads), grep("sqrt"));
  EXPECT_EQ(to_folded(out),
            "[worker-1 tid=1];run;compute;sqrt 4\n"
            "[worker-2 tid=2];run;compute;sqrt 1\n"
            "java-27409/28741;Interpreter;sqrt 7\n");
  EXPECT_EQ(out.total().value, 4 + 1 + 7);
}

TEST(Filters, GrepMatchAboveTheLeafKeepsEveryStackBelowIt) {
  FrameTree out = apply_filters(filtered_tree(kThreads), grep("^run$"));
  EXPECT_EQ(out.total().value, 4 + 2 + 3 + 1);
  // A match in a thread root keeps the root's own count too.
  FrameTree main_only = apply_filters(filtered_tree(kThreads), grep("main"));
  EXPECT_EQ(to_folded(main_only), "[main] 1\n[main];main;parse 5\n");
}

TEST(Filters, GrepTotalsEqualTheMatchingLines) {
  const std::string_view lines[] = {"a;b;c 3", "a;x 2", "b;c 1.5", "c 4", "a;b 7", "d;e;f;c 1"};
  std::string all;
  for (std::string_view l : lines) all += std::string(l) + "\n";
  FrameTree in = filtered_tree(all);
  for (const char* re : {"c", "^b$", "a", "zzz", "e|x"}) {
    SCOPED_TRACE(re);
    std::regex r(re);
    std::string matching;
    for (std::string_view l : lines) {
      std::string stack(l.substr(0, l.rfind(' ')));
      bool hit = false;
      for (size_t start = 0;;) {
        size_t semi = stack.find(';', start);
        hit |= std::regex_search(stack.substr(start, semi - start), r);
        if (semi == std::string::npos) break;
        start = semi + 1;
      }
      if (hit) matching += std::string(l) + "\n";
    }
    FrameTree out = apply_filters(in, grep(re));
    EXPECT_EQ(out.total().value, filtered_tree(matching).total().value);
    // The input has a real number ("b;c 1.5"), so what is kept is a profile of real numbers
    // ("7.0"), and the matching lines alone may not be ("7").
    auto as_read = [](const FrameTree& t) {
      return std::regex_replace(to_folded(t), std::regex(R"(\.0\n)"), "\n");
    };
    EXPECT_EQ(as_read(out), as_read(filtered_tree(matching)));
  }
}

TEST(Filters, OnlyThreads) {
  FrameTree out = apply_filters(filtered_tree(kThreads), only_threads("worker-1 "));
  EXPECT_EQ(to_folded(out),
            "[worker-1 tid=1];run;compute;sqrt 4\n"
            "[worker-1 tid=1];run;io;read 2\n");
  EXPECT_EQ(out.total().value, 6);
  EXPECT_EQ(apply_filters(filtered_tree(kThreads), only_threads("^nothing$")).total().value, 0);
}

TEST(Filters, GroupThreadsMergesPools) {
  FrameTree out = apply_filters(filtered_tree(kThreads), group_threads());
  EXPECT_EQ(to_folded(out),
            "[java];Interpreter;sqrt 7\n"
            "[main] 1\n"
            "[main];main;parse 5\n"
            "[worker-*];run;compute 3\n"
            "[worker-*];run;compute;sqrt 5\n"
            "[worker-*];run;io;read 2\n");
  EXPECT_EQ(out.total().value, filtered_tree(kThreads).total().value);
  // A depth-1 frame that is no thread root keeps its name.
  EXPECT_EQ(to_folded(apply_filters(filtered_tree("main-1;x 2\nfoo;bar 1\n"), group_threads())),
            "foo;bar 1\nmain-1;x 2\n");
}

TEST(Filters, Combined) {
  FilterOptions o = grep("sqrt");
  o.only_threads = pattern("worker");
  o.group_threads = true;
  FrameTree out = apply_filters(filtered_tree(kThreads), o);
  EXPECT_EQ(to_folded(out), "[worker-*];run;compute;sqrt 5\n");
  EXPECT_EQ(out.total().value, 5);
}

TEST(Filters, FlameChartKeepsTimeOrder) {
  FrameTree in = filtered_tree("[t-1];a 1\n[t-2];b 1\n[t-1];c 1\n", Merge::kLastChild);
  FrameTree out = apply_filters(in, group_threads());
  std::string order;
  for (NodeId n = out.node(kRoot).first_child; n != kNone; n = out.node(n).next_sibling) {
    order += std::string(out.name(out.node(n).name)) + ":";
    for (NodeId c = out.node(n).first_child; c != kNone; c = out.node(c).next_sibling) {
      order += out.name(out.node(c).name);
    }
    order += " ";
  }
  EXPECT_EQ(order, "[t-*]:abc ");
  EXPECT_EQ(out.merge(), Merge::kLastChild);
}

TEST(Filters, DifferentialKeepsBaseCounts) {
  FrameTree in = filtered_tree(
      "[worker-1 tid=1];a 2 3\n"
      "[worker-2 tid=2];a 4 1\n"
      "[worker-1 tid=1];b 5 5\n"
      "[worker-2 tid=2];c 6\n");
  FrameTree grouped = apply_filters(in, group_threads());
  ASSERT_TRUE(grouped.differential());
  EXPECT_EQ(grouped.total().value, in.total().value);
  EXPECT_EQ(grouped.base_total(kRoot).value, in.base_total(kRoot).value);
  EXPECT_EQ(to_folded(grouped), "[worker-*];a 6 4\n[worker-*];b 5 5\n[worker-*];c 6 6\n");

  FrameTree only_a = apply_filters(in, grep("^a$"));
  EXPECT_EQ(only_a.total().value, 3 + 1);
  EXPECT_EQ(only_a.base_total(kRoot).value, 2 + 4);
}

TEST(Filters, DifferentialNodeWithOnlyABaseCountSurvives) {
  FrameTree in = filtered_tree("a;gone 5 0\na;kept 1 1\n");
  FrameTree out = apply_filters(in, grep("gone"));
  EXPECT_EQ(out.total().value, 0);
  EXPECT_EQ(out.base_total(kRoot).value, 5);
  EXPECT_EQ(to_folded(out), "a;gone 5 0\n");
}

}  // namespace
}  // namespace hearth::profile
