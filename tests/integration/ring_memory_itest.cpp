// What a long-running sampler (`hearth watch`'s ring) keeps: the figures that must outlive the
// rounds it forgets (the stall total), and nothing of what it has forgotten (the distinct stacks
// and names only forgotten rounds used). Needs root.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/stacks/process_set.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using hearth::stacks::CaptureMethod;
using hearth::stacks::ProcessSet;
using hearth::stacks::ProcessSetOptions;
using hearth::testing_support::fresh_dir;
using hearth::testing_support::PcpTmpDir;
using hearth::testing_support::poll_until;
using hearth::testing_support::published;
using hearth::testing_support::run_hearth;
using hearth::testing_support::wait_exit;
using hearth::testing_support::wait_for_text;
using hearth::testing_support::slurp;
using hearth::testing_support::split;
using hearth::testing_support::start_hearth;
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

// A target whose stacks keep changing (threads created and exiting, each first recursing to a
// depth of its own), watched with a 2 s ring: many spans later, the distinct stacks and names the
// watcher holds (watch.ring.stacks, .names) are a small part of those it has added since it
// started (.stacks_added, .names_added): what only forgotten rounds used is trimmed. Without the
// trimming, held and added are the same. Waits on counts (bounded), not on time.
TEST(RingMemory, TheTablesHoldTheRingNotTheRun) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the bpf capture)";
  const fs::path dir = fresh_dir("ring_tables");
  PcpTmpDir tmp(dir / "tmp");
  auto target = Target::start("thread_churn_target-nofp",
                              {"--rate", "100", "--life", "100", "--depth", "300"});
  ASSERT_TRUE(target);
  const std::string err = (dir / "watch.err").string();
  pid_t h =
      start_hearth({"watch", "-p", std::to_string(target->pid()), "-o", (dir / "reports").string(),
                    "--rule", "quiet = stack:'no_such_frame_anywhere' > 50%", "--ring", "2",
                    "--rate", "10", "--publish", "ring_tables"},
                   err);
  ASSERT_TRUE(wait_for_text(err, "watching 1 process")) << slurp(err);
  std::map<std::string, double> f;
  for (int i = 0; i < 180; ++i) {  // until 600 distinct stacks were added: 3 minutes at most
    f = published("ring_tables");
    if (f["watch.ring.stacks_added"] >= 600) break;
    std::this_thread::sleep_for(1s);
  }
  std::printf("  held %.0f of %.0f stacks added, %.0f of %.0f names; ring %.1f s; RSS %.1f MB\n",
              f["watch.ring.stacks"], f["watch.ring.stacks_added"], f["watch.ring.names"],
              f["watch.ring.names_added"], f["watch.ring.seconds"], f["watch.ring.bytes"] / 1e6);
  ASSERT_GE(f["watch.ring.stacks_added"], 600) << slurp(err);
  EXPECT_GT(f["watch.ring.stacks"], 0);
  EXPECT_LE(f["watch.ring.stacks"] * 3, f["watch.ring.stacks_added"]);
  EXPECT_LE(f["watch.ring.names"] * 2, f["watch.ring.names_added"]);
  EXPECT_LE(f["watch.ring.seconds"], 10);
  kill(h, SIGTERM);
  EXPECT_EQ(wait_exit(h), 0) << slurp(err);
}

// A memory budget hearth cannot keep (1 MB): the ring is shortened to its least (5 s of its
// 30), said once in the log and published (watch.ring.shortened, .shortenings, memory.budget),
// and the report a rule then triggers holds that shorter span, as its report.json says.
TEST(RingMemory, OverTheMemoryBudgetTheRingIsShortenedAndSaysSo) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (the bpf capture)";
  const fs::path dir = fresh_dir("ring_budget");
  PcpTmpDir tmp(dir / "tmp");
  auto target = Target::start("stack_target-fp", {"--threads", "2", "--depth", "3", "--spin", "0"});
  ASSERT_TRUE(target);
  const std::string err = (dir / "watch.err").string();
  // The rule holds once it has for 15 s: unshortened, the ring would hold 15 s by then.
  pid_t h = start_hearth(
      {"watch", "-p", std::to_string(target->pid()), "-o", (dir / "reports").string(), "--rule",
       "held = stack:'main' >= 0% for 15s", "--ring", "30", "--rate", "10", "--after", "1",
       "--max-reports", "1", "--memory-budget", "1", "--publish", "ring_budget"},
      err);
  ASSERT_TRUE(wait_for_text(err, "over the budget of 1 MB")) << slurp(err);
  std::map<std::string, double> f;
  poll_until([&] {  // its next evaluation publishes it
    f = published("ring_budget");
    return f["watch.ring.shortened"] == 1;
  });
  EXPECT_EQ(f["watch.ring.shortened"], 1);
  EXPECT_EQ(f["watch.ring.shortenings"], 1);
  EXPECT_EQ(f["watch.memory.budget"], 1 << 20);
  EXPECT_EQ(wait_exit(h), 0) << slurp(err);  // --max-reports 1: it ends after the report
  const std::string log = slurp(err);
  size_t said = 0;
  for (size_t at = log.find("over the budget of"); at != std::string::npos;
       at = log.find("over the budget of", at + 1))
    ++said;
  EXPECT_EQ(said, 1u) << "said once per episode: " << log;
  EXPECT_NE(log.find("the ring at its least (5 s)"), std::string::npos) << log;
  std::vector<fs::path> reports;
  for (const auto& e : fs::directory_iterator(dir / "reports")) {
    if (fs::exists(e.path() / "report.json")) reports.push_back(e.path());
  }
  ASSERT_EQ(reports.size(), 1u) << log;
  auto meta = nlohmann::json::parse(slurp((reports[0] / "report.json").string()));
  EXPECT_EQ(meta["watch"]["ring_s"], 30);
  EXPECT_EQ(meta["watch"]["memory_budget_mb"], 1);
  EXPECT_EQ(meta["watch"]["ring_shortened"], true);
  const double held = meta["watch"]["ring_held_s"].get<double>();
  EXPECT_GE(held, 4) << "the least the ring holds is 5 s";
  EXPECT_LE(held, 10) << "the shortened ring holds 5 s (and a sample period), not 15";
  EXPECT_GE(meta["trigger"]["at_s"].get<double>(), 15);
}

}  // namespace
