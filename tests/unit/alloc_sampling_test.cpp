// The byte sampling's arithmetic: the thresholds' mean, a sample's weight, and the estimate an
// allocation mix gets when the countdown alloc.bpf.c runs is replayed here on the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <unistd.h>

#include <set>

#include "bin/hearth/cmd_alloc.h"
#include "collectors/alloc/alloc_probe.h"
#include "collectors/alloc/allocator_symbols.h"
#include "collectors/proc/maps.h"

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

// The calls a site's samples stand for (--count): each sample weighs 1 / P(sampled), its bytes'
// weight over its size. Replayed as above on one site of small calls (p ~ 0.006) and one of
// large (p ~ 0.9): both within 5% of the calls made.
TEST(AllocSampling, TheCountdownEstimatesEverySitesCalls) {
  const double mean = 16384;
  const std::vector<uint64_t> table = exponential_thresholds(mean);
  std::mt19937_64 rng(7);
  auto draw = [&] { return static_cast<int64_t>(table[rng() % table.size()]); };
  const uint64_t sizes[2] = {100, 40000};
  double estimate[2] = {0, 0};
  const int rounds = 400000;
  int64_t left = draw();
  for (int round = 0; round < rounds; ++round) {
    for (int site = 0; site < 2; ++site) {
      left -= static_cast<int64_t>(sizes[site]);
      if (left > 0) continue;
      left = draw();
      estimate[site] += sample_weight(sizes[site], mean) / static_cast<double>(sizes[site]);
    }
  }
  for (int site = 0; site < 2; ++site) EXPECT_NEAR(estimate[site], rounds, 0.05 * rounds) << site;
}

// This process's own glibc: every entry found, one probe per function (aligned_alloc is glibc's
// memalign under a second name: merged, or every call would count twice), known as glibc.
TEST(AllocSampling, GlibcsEntriesOnceEach) {
  auto maps = hearth::proc::read_maps(getpid());
  ASSERT_TRUE(maps);
  auto a = hearth::alloc::find_allocator(getpid(), *maps);
  ASSERT_TRUE(a) << a.error().message;
  if (!a->glibc) GTEST_SKIP() << "not linked with glibc: " << a->path;
  std::set<int> kinds;
  std::set<uint64_t> offsets;
  std::set<std::string> names;
  for (const hearth::alloc::AllocatorEntry& e : a->entries) {
    EXPECT_TRUE(kinds.insert(e.kind).second) << e.name;
    EXPECT_TRUE(offsets.insert(e.offset).second) << e.name << " shares its offset";
    names.insert(e.name);
  }
  for (const char* n :
       {"malloc", "calloc", "realloc", "posix_memalign", "valloc", "pvalloc", "free"})
    EXPECT_TRUE(names.count(n)) << n;
  // glibc 2.36 defines aligned_alloc as an alias of memalign; a later one may not.
  EXPECT_TRUE(names.count("memalign (= aligned_alloc)") ||
              (names.count("memalign") && names.count("aligned_alloc")));
  EXPECT_EQ(a->entries.front().name, "malloc");
}

TEST(AllocSampling, TheCommandLineIsChecked) {
  hearth::cli::AllocArgs a;
  EXPECT_EQ(hearth::cli::validate_alloc(a).size(), 2u);  // no -p, no -o
  a.pid = 1;
  a.output = "x.folded";
  EXPECT_TRUE(hearth::cli::validate_alloc(a).empty());
  a.mean = 0;
  a.duration = 0;
  a.live_max = 0;
  EXPECT_EQ(hearth::cli::validate_alloc(a).size(), 3u);
}

}  // namespace
