#include "render/replay/sample_window.h"

#include <gtest/gtest.h>

#include "tests/unit/replay_samples.h"

namespace hearth::replay {
namespace {

using replay_testing::random_recording;
using replay_testing::recount;
using replay_testing::small_recording;

std::map<std::string, uint64_t> replay_window_counts(const SampleWindow& w) {
  std::map<std::string, uint64_t> out;
  for (const SampleWindow::Entry& e : w.top(1'000'000)) out[e.stack] = e.count;
  return out;
}

TEST(ReplayWindow, ThreadsAtARoundWithTheRoundTheyHaveBeenSoSince) {
  Samples s = small_recording();
  SampleWindow w(s, 0);
  ASSERT_EQ(w.threads().size(), 3u);
  w.seek(4);
  const auto& t = w.threads();
  ASSERT_EQ(t.size(), 3u);  // by tid: 42, 43, 44
  EXPECT_EQ(t[0].tid, 42);
  EXPECT_EQ(t[2].tid, 44);
  EXPECT_EQ(t[2].state, 'D');
  EXPECT_EQ(t[2].stack, 2u);
  EXPECT_EQ(t[2].since, 3u);
  EXPECT_EQ(t[1].since, 0u);
  w.seek(7);
  ASSERT_EQ(w.threads().size(), 2u) << "42 left at round 7";
  w.seek(8);
  ASSERT_EQ(w.threads().size(), 3u);
  EXPECT_EQ(w.threads()[0].since, 8u) << "back at round 8: as it is since then";
  w.seek(2);  // backwards
  EXPECT_EQ(w.threads()[2].state, 'S');
}

TEST(ReplayWindow, CountsEveryRoundSinceTheStartWithoutAWindow) {
  Samples s = small_recording();
  SampleWindow w(s, 0);
  w.seek(9);
  EXPECT_EQ(w.total(), 29u);  // 10 rounds x 3 threads, but 42 missed round 7
  EXPECT_EQ(w.rounds_counted(), 10u);
  auto top = w.top(4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].stack, "[app tid=42];start_thread;poll;do_futex_[k];futex_wait_[k]");
  EXPECT_EQ(top[0].count, 7u);
  EXPECT_EQ(top[1].stack, "[worker-2 tid=44];start_thread;poll;do_futex_[k];futex_wait_[k]");
  EXPECT_EQ(top[1].count, 6u);
  // worker-1: 5 in poll, 5 in work: equals in text order
  EXPECT_EQ(top[2].stack, "[worker-1 tid=43];start_thread;poll;do_futex_[k];futex_wait_[k]");
  EXPECT_EQ(top[3].stack, "[worker-1 tid=43];start_thread;work");
  EXPECT_EQ(top[3].count, 5u);
  EXPECT_EQ(w.stall_max_ns(), 100'000u);
  EXPECT_EQ(w.stall_median_ns(), 60'000u);
}

TEST(ReplayWindow, ATrailingWindowCountsOnlyItsRounds) {
  Samples s = small_recording();
  SampleWindow w(s, 250'000'000);  // rounds within 250 ms: three at 100 ms apart
  w.seek(5);
  EXPECT_EQ(w.window_begin(), 3u);
  EXPECT_EQ(w.total(), 9u);
  EXPECT_EQ(replay_window_counts(w), recount(s, 3, 5));
  EXPECT_EQ(w.stall_max_ns(), 60'000u);
  w.seek(1);
  EXPECT_EQ(w.window_begin(), 0u);
  EXPECT_EQ(replay_window_counts(w), recount(s, 0, 1));
}

TEST(ReplayWindow, NoRoundBeforeTheFirstRoundIsCounted) {
  Samples s = small_recording();
  SampleWindow w(s, 0, 4);
  EXPECT_EQ(w.round(), 4u);
  EXPECT_EQ(w.total(), 3u);
  w.seek(9);
  EXPECT_EQ(replay_window_counts(w), recount(s, 4, 9));
}

// Seeks anywhere, back and forth, across checkpoints: the counts always equal a recount.
TEST(ReplayWindow, IncrementalCountsEqualARecountAnywhere) {
  Samples s = random_recording(800, 6, 7);
  for (uint64_t window_ns : {uint64_t{0}, uint64_t{300'000'000}, uint64_t{5'000'000'000}}) {
    SampleWindow w(s, window_ns, 10);
    std::mt19937 rng(11);
    for (int i = 0; i < 40; ++i) {
      size_t r;
      switch (i % 4) {
        case 0:
          r = 10 + rng() % (s.rounds.size() - 10);
          break;
        case 1:
          r = std::min(s.rounds.size() - 1, w.round() + 1);
          break;
        case 2:
          r = std::max<size_t>(10, w.round() - 1);
          break;
        default:
          r = std::min(s.rounds.size() - 1, w.round() + rng() % 40);
          break;
      }
      w.seek(r);
      auto expected = recount(s, w.window_begin(), r);
      ASSERT_EQ(replay_window_counts(w), expected) << "window " << window_ns << " round " << r;
      uint64_t total = 0;
      for (const auto& [stack, n] : expected) total += n;
      ASSERT_EQ(w.total(), total);
      if (window_ns > 0 && w.window_begin() > 10) {
        EXPECT_LE(s.rounds[r].time_ns - s.rounds[w.window_begin()].time_ns, window_ns - 1);
        EXPECT_GE(s.rounds[r].time_ns - s.rounds[w.window_begin() - 1].time_ns, window_ns);
      }
    }
  }
}

// The window's threads at every round are expand()'s: the reader's own walk of the samples.
TEST(ReplayWindow, ThreadsAreThoseExpandGives) {
  for (const Samples& s : {small_recording(), random_recording(700, 5, 9)}) {
    SampleWindow w(s, 100'000'000);
    size_t checked = 0;
    timed_samples::expand(s, [&](size_t round, std::span<const timed_samples::Sample> threads) {
      w.seek(round);
      std::vector<ThreadNow> mine;
      for (const ThreadNow& t : w.threads())
        if (t.pid == s.rounds[round].pid) mine.push_back(t);
      ASSERT_EQ(mine.size(), threads.size()) << "round " << round;
      for (size_t i = 0; i < mine.size(); ++i) {
        EXPECT_EQ(mine[i].thread, threads[i].thread) << "round " << round;
        EXPECT_EQ(mine[i].stack, threads[i].stack) << "round " << round;
        EXPECT_EQ(mine[i].state, threads[i].state) << "round " << round;
        EXPECT_EQ(mine[i].since, threads[i].since_round)
            << "round " << round << " tid " << mine[i].tid;
      }
      ++checked;
    });
    EXPECT_EQ(checked, s.rounds.size());
  }
}

TEST(ReplayWindow, TopKeepsTheMostCountedInTextOrderAmongEquals) {
  Samples s = random_recording(300, 5, 3);
  SampleWindow w(s, 0);
  w.seek(299);
  auto all = recount(s, 0, 299);
  std::vector<std::pair<std::string, uint64_t>> expected(all.begin(), all.end());
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t n : {size_t{1}, size_t{4}, size_t{9}}) {
    auto top = w.top(n);
    ASSERT_EQ(top.size(), std::min(n, expected.size()));
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].stack, expected[i].first) << n << " " << i;
      EXPECT_EQ(top[i].count, expected[i].second);
    }
  }
}

}  // namespace
}  // namespace hearth::replay
