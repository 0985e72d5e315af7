// The event filter expressions that select a target's tasks in the kernel (task_filter.h).
#include "collectors/sched/task_filter.h"

#include <gtest/gtest.h>

#include <set>

namespace hearth::sched {
namespace {

TEST(TaskFilter, RangesAreExactSortedAndMerged) {
  EXPECT_EQ(tid_ranges({}), std::vector<TidRange>{});
  EXPECT_EQ(tid_ranges({7}), (std::vector<TidRange>{{7, 7}}));
  EXPECT_EQ(tid_ranges({12, 9, 10, 7, 11, 10, 0, -3, 20}),
            (std::vector<TidRange>{{7, 7}, {9, 12}, {20, 20}}));
  EXPECT_EQ(tid_ranges({5, 6, 8}), (std::vector<TidRange>{{5, 6}, {8, 8}}));
  // The largest tid the kernel hands out (PID_MAX_LIMIT - 1) and its neighbour.
  EXPECT_EQ(tid_ranges({4194303, 4194302}), (std::vector<TidRange>{{4194302, 4194303}}));
}

TEST(TaskFilter, FreeGapsAreBridged) {
  std::set<pid_t> busy = {15, 40};
  auto free = [&](pid_t t) { return busy.count(t) == 0; };
  // 10-12 and 14: 13 is free, bridged; 20: 15 is busy, not bridged; 30: 21-29 free, bridged.
  EXPECT_EQ(bridge_free_gaps(tid_ranges({10, 11, 12, 14, 20, 30}), free),
            (std::vector<TidRange>{{10, 14}, {20, 30}}));
  // A busy id right after a range or right before the next one stops the bridge.
  EXPECT_EQ(bridge_free_gaps(tid_ranges({38, 41}), free),
            (std::vector<TidRange>{{38, 38}, {41, 41}}));
  // Gaps longer than kMaxBridgedGap ids stay, however free.
  const pid_t far = 1000 + kMaxBridgedGap + 2;  // a gap of kMaxBridgedGap + 1 ids
  EXPECT_EQ(bridge_free_gaps(tid_ranges({1000, far}), free),
            (std::vector<TidRange>{{1000, 1000}, {far, far}}));
  EXPECT_EQ(bridge_free_gaps(tid_ranges({1000, far - 1}), free),
            (std::vector<TidRange>{{1000, far - 1}}));
  EXPECT_EQ(bridge_free_gaps({}, free), std::vector<TidRange>{});
  // Nothing free: unchanged.
  EXPECT_EQ(bridge_free_gaps(tid_ranges({1, 3, 5}), [](pid_t) { return false; }),
            tid_ranges({1, 3, 5}));
}

TEST(TaskFilter, ComparisonsCountOneForATidTwoForARange) {
  EXPECT_EQ(filter_comparisons(tid_ranges({})), 0u);
  EXPECT_EQ(filter_comparisons(tid_ranges({3})), 1u);
  EXPECT_EQ(filter_comparisons(tid_ranges({3, 4, 5, 6})), 2u);
  EXPECT_EQ(filter_comparisons(tid_ranges({3, 4, 9, 20})), 4u);
  // A process whose 500 threads were created together fits; 11 scattered tids do not.
  std::vector<pid_t> pool;
  for (pid_t t = 1000; t < 1500; ++t) pool.push_back(t);
  EXPECT_LE(filter_comparisons(tid_ranges(pool)), kMaxFilterComparisons);
  std::vector<pid_t> scattered;
  for (pid_t t = 0; t < 11; ++t) scattered.push_back(100 + 2 * t);
  EXPECT_GT(filter_comparisons(tid_ranges(scattered)), kMaxFilterComparisons);
}

TEST(TaskFilter, ExpressionsInTheKernelsFilterLanguage) {
  EXPECT_EQ(filter_expression({}, {"pid"}), "");
  EXPECT_EQ(filter_expression(tid_ranges({42}), {"pid"}), "pid==42");
  EXPECT_EQ(filter_expression(tid_ranges({7, 9, 10, 11}), {"prev_pid", "next_pid"}),
            "prev_pid==7||(prev_pid>=9&&prev_pid<=11)||next_pid==7||"
            "(next_pid>=9&&next_pid<=11)");
}

TEST(TaskFilter, TheLongestExpressionFitsTheKernelsPageLimit) {
  // The kernel refuses a filter of a page or more: the worst case allowed by
  // kMaxFilterComparisons (all ranges of 7-digit tids, two fields) stays well below.
  std::vector<pid_t> tids;
  for (size_t i = 0; i < kMaxFilterComparisons / 2; ++i) {
    tids.push_back(static_cast<pid_t>(4000000 + 10 * i));
    tids.push_back(static_cast<pid_t>(4000001 + 10 * i));
  }
  ASSERT_EQ(filter_comparisons(tid_ranges(tids)), kMaxFilterComparisons);
  EXPECT_LT(filter_expression(tid_ranges(tids), {"prev_pid", "next_pid"}).size(), 1024u);
}

TEST(TaskFilter, AndKeepsEachSideWhole) {
  EXPECT_EQ(filter_and("pid==1||pid==2", "common_pid==0||CPU==1"),
            "(pid==1||pid==2)&&(common_pid==0||CPU==1)");
  EXPECT_EQ(filter_and("", "common_pid==0"), "common_pid==0");
  EXPECT_EQ(filter_and("pid==1", ""), "pid==1");
  EXPECT_EQ(filter_and("", ""), "");
}

}  // namespace
}  // namespace hearth::sched
