#include "render/live/live_view.h"

#include "collectors/stacks/stack_counts.h"

#include <gtest/gtest.h>

#include <sstream>

namespace hearth::stacks {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

StackCounts sample_counts() {
  StackCounts c;
  std::vector<std::string> lock = {"start_thread",    "worker_loop()", "std::mutex::lock()",
                                   "__lll_lock_wait", "do_futex_[k]",  "futex_wait_[k]"};
  std::vector<std::string> work = {"start_thread", "worker_loop()", "compute(int)"};
  c.add(thread_root("worker-1", 11, false), lock, 6);
  c.add(thread_root("worker-2", 12, false), work, 3);
  c.add(thread_root("main", 10, false), std::vector<std::string>{"main", "poll"}, 1);
  return c;
}

TEST(StackCounts, FoldedIsSortedWithThreadRoots) {
  EXPECT_EQ(sample_counts().to_folded(),
            "[main tid=10];main;poll 1\n"
            "[worker-1 tid=11];start_thread;worker_loop();std::mutex::lock();__lll_lock_wait;"
            "do_futex_[k];futex_wait_[k] 6\n"
            "[worker-2 tid=12];start_thread;worker_loop();compute(int) 3\n");
}

TEST(StackCounts, MergedThreadsAndSafeNames) {
  EXPECT_EQ(thread_root("pool;1", 5, true), "[pool:1]");
  EXPECT_EQ(folded_safe("a;b\nc"), "a:b?c");
  StackCounts c;
  c.add("[w]", std::vector<std::string>{"f"});
  c.add("[w]", std::vector<std::string>{"f"});
  EXPECT_EQ(c.to_folded(), "[w];f 2\n");
  EXPECT_EQ(c.total(), 2u);
  EXPECT_EQ(c.unique(), 1u);
}

// The live view of `hearth stacks` as cmd_stacks.cpp draws it: the hottest stacks of COUNTS.
std::string render_live_view(const StackCounts& counts, const live::LiveStatus& s, int cols,
                             int rows) {
  std::vector<live::StackRow> rows_of_stacks;
  for (const StackCounts::Entry& e : counts.top(static_cast<size_t>(rows)))
    rows_of_stacks.push_back({e.stack, e.count});
  return live::render(
      {.header = live::live_header(s), .stacks = rows_of_stacks, .total = counts.total()}, cols,
      rows);
}

TEST(LiveView, HottestStacksFirstLeafFirstWithPercentages) {
  live::LiveStatus s{.pid = 42, .process_name = "app", .samples = 10, .threads = 3};
  auto lines = lines_of(render_live_view(sample_counts(), s, 160, 10));
  ASSERT_EQ(lines.size(), 5u);  // header, column titles, three stacks
  EXPECT_NE(lines[0].find("pid 42 (app)"), std::string::npos);
  EXPECT_NE(lines[2].find(" 60.0"), std::string::npos);
  EXPECT_NE(lines[2].find("[worker-1 tid=11]"), std::string::npos);
  EXPECT_NE(lines[2].find("futex_wait_[k] ... < __lll_lock_wait < std::mutex::lock() < "
                          "worker_loop() < start_thread"),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find(" 30.0"), std::string::npos);
  EXPECT_NE(lines[4].find(" 10.0"), std::string::npos);
}

// A profile of several processes: the thread column names the thread under its process root,
// which stays out of the stack; a single-threaded process is named by its process root.
TEST(LiveView, ThreadsOfSeveralProcessesNamedByTheirThreadRoot) {
  std::vector<live::StackRow> rows = {{"[app pid=7];[w-1 tid=9];start;wait", 2},
                                      {"[pg pid=8];main;poll", 1}};
  auto lines = lines_of(live::render({.header = "h", .stacks = rows, .total = 3}, 160, 10));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[2].find("[w-1 tid=9]"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[2].find("pid=7"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("wait < start"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("[pg pid=8]"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("poll < main"), std::string::npos) << lines[3];
}

TEST(LiveView, FitsTheTerminal) {
  live::LiveStatus s{.pid = 42, .process_name = "app"};
  for (int cols : {20, 40, 80}) {
    for (int rows : {3, 4, 24}) {
      auto lines = lines_of(render_live_view(sample_counts(), s, cols, rows));
      EXPECT_LE(lines.size(), static_cast<size_t>(rows));
      for (const auto& l : lines) EXPECT_LE(l.size(), static_cast<size_t>(cols)) << l;
    }
  }
  EXPECT_EQ(lines_of(render_live_view(sample_counts(), s, 80, 3)).size(), 3u);  // one stack
  EXPECT_EQ(lines_of(render_live_view(sample_counts(), s, 10, 2)).size(), 1u);  // too small
}

}  // namespace
}  // namespace hearth::stacks
