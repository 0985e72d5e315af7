// The byte sampling's arithmetic: the thresholds' mean, a sample's weight, and the estimate an
// allocation mix gets when the countdown alloc.bpf.c runs is replayed here on the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "bin/hearth/cmd_alloc.h"
#include "collectors/alloc/alloc_probe.h"

namespace {

using hearth::alloc::exponential_thresholds;
using hearth::alloc::sample_weight;

TEST(AllocSampling, ThresholdsHaveTheMeanAsked) {
  for (double mean : {1024.0, 16384.0, 524288.0}) {
    const std::vector<uint64_t> t = exponential_thresholds(mean);
    ASSERT_EQ(t.size(), size_t{HEARTH_ALLOC_THRESHOLDS});
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
    EXPECT_GE(t.front(), 1u);
    const double m = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
    EXPECT_NEAR(m, mean, 0.01 * mean);
  }
}

TEST(AllocSampling, AWeightIsTheSizeOverItsChanceOfBeingSampled) {
  EXPECT_NEAR(sample_weight(1, 16384), 16384, 1);  // tiny: one sample stands for a mean
  EXPECT_NEAR(sample_weight(16384, 16384), 16384 / (1 - std::exp(-1.0)), 1e-6);
  EXPECT_DOUBLE_EQ(sample_weight(uint64_t{1} << 30, 16384), double(uint64_t{1} << 30));  // sure
  for (uint64_t s : {1u, 100u, 5000u, 100000u}) EXPECT_GE(sample_weight(s, 4096), double(s));
}

// The BPF countdown replayed: a thread's threshold drawn from the table at random, the sizes
// counted down, a fresh draw at each crossing, each sample weighed. Over a mix of small and
// large allocations at three sites, each site's estimate comes within 3% of its bytes.
TEST(AllocSampling, TheCountdownEstimatesEverySitesBytes) {
  const double mean = 16384;
  const std::vector<uint64_t> table = exponential_thresholds(mean);
  std::mt19937_64 rng(42);
  auto draw = [&] { return static_cast<int64_t>(table[rng() % table.size()]); };
  const uint64_t sizes[3] = {1500, 100, 40000};  // 4, 30 and (every 4th round) 1 a round
  const uint64_t per_round[3] = {4, 30, 0};
  double truth[3] = {0, 0, 0}, estimate[3] = {0, 0, 0};
  int64_t left = draw();
  for (int round = 0; round < 200000; ++round) {
    for (int site = 0; site < 3; ++site) {
      const uint64_t n = site == 2 ? (round % 4 == 0 ? 1 : 0) : per_round[site];
      for (uint64_t i = 0; i < n; ++i) {
        truth[site] += static_cast<double>(sizes[site]);
        left -= static_cast<int64_t>(sizes[site]);
        if (left > 0) continue;
        left = draw();
        estimate[site] += sample_weight(sizes[site], mean);
      }
    }
  }
  for (int site = 0; site < 3; ++site) {
    SCOPED_TRACE(site);
    EXPECT_NEAR(estimate[site], truth[site], 0.03 * truth[site]);
  }
}

TEST(AllocSampling, TheCommandLineIsChecked) {
  hearth::cli::AllocArgs a;
  EXPECT_EQ(hearth::cli::validate_alloc(a).size(), 2u);  // no -p, no -o
  a.pid = 1;
  a.output = "x.folded";
  EXPECT_TRUE(hearth::cli::validate_alloc(a).empty());
  a.mean = 0;
  a.duration = 0;
  EXPECT_EQ(hearth::cli::validate_alloc(a).size(), 2u);
}

}  // namespace
