#include "collectors/proc/title_tally.h"

#include <gtest/gtest.h>

#include <string>

namespace hearth::proc {
namespace {

TEST(TitleTally, TheTitleSeenMostNotTheLast) {
  TitleTally t;
  EXPECT_EQ(t.most_seen(), "");
  t.count("postgres: bench bench [local] idle");
  t.count("postgres: bench bench [local] UPDATE");
  t.count("postgres: bench bench [local] UPDATE");
  t.count("postgres: bench bench [local] UPDATE");
  t.count("postgres: bench bench [local] idle");
  EXPECT_EQ(t.most_seen(), "postgres: bench bench [local] UPDATE");
  t.count("");  // a zombie's: not a look
  EXPECT_EQ(t.most_seen(), "postgres: bench bench [local] UPDATE");
}

TEST(TitleTally, TiesGoToTheLater) {
  TitleTally t;
  t.count("a");
  t.count("b");
  EXPECT_EQ(t.most_seen(), "b");
  t.count("a");
  t.count("b");
  EXPECT_EQ(t.most_seen(), "b");
  t.count("a");
  EXPECT_EQ(t.most_seen(), "a");
}

TEST(TitleTally, BoundedYetATitleThatKeepsComingBackWins) {
  TitleTally t;
  // A title per request (an id in it) between looks at the one the process mostly shows.
  for (int i = 0; i < 1000; ++i) {
    t.count("worker: request " + std::to_string(i));
    if (i % 3 == 0) t.count("worker: idle");
  }
  EXPECT_EQ(t.most_seen(), "worker: idle");
}

}  // namespace
}  // namespace hearth::proc
