// What a long-running sampler (`hearth watch`'s ring) keeps: the figures that must outlive the
// rounds it forgets (the stall total), and nothing of what it has forgotten (the distinct stacks
// and names only forgotten rounds used). Needs root.
#include <unistd.h>

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "collectors/stacks/process_set.h"
#include "tests/integration/target_process.h"

namespace {

using hearth::stacks::CaptureMethod;
using hearth::stacks::ProcessSet;
using hearth::stacks::ProcessSetOptions;
using hearth::testing_support::Target;

// The stall total (what `hearth watch` publishes as watch.sampling.stopped_us) is the run's:
// forgetting rounds drops their per-thread figures, not their share of the total.
TEST(RingMemory, TheStallTotalOutlivesTheRoundsForgotten) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto target = Target::start("stack_target-fp", {"--threads", "3", "--depth", "4", "--spin", "1"});
  ASSERT_TRUE(target);
  ProcessSetOptions o;
  o.selection.pids = {target->pid()};
  o.sampler.method = CaptureMethod::kPtrace;  // every thread stopped: every stall above 0
  o.sampler.one_at_a_time = true;
  auto set = ProcessSet::open(o);
  ASSERT_TRUE(set) << set.error().message;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(set->sample());
  const auto before = set->summary();
  const double sum =
      std::accumulate(before.thread_stall_us.begin(), before.thread_stall_us.end(), 0.0);
  ASSERT_GT(sum, 0);
  EXPECT_NEAR(set->stall_us_total(), sum, 1e-6 * sum);
  set->forget_before(set->now_ns());  // every round
  EXPECT_EQ(set->rounds_held(), 0u);
  EXPECT_TRUE(set->summary().thread_stall_us.empty());
  EXPECT_NEAR(set->stall_us_total(), sum, 1e-6 * sum);
  ASSERT_TRUE(set->sample());
  EXPECT_GT(set->stall_us_total(), sum);
  EXPECT_TRUE(set->detach());
}

}  // namespace
