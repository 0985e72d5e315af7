// hearth watch's budget: the cooldown, the reports per hour and in all, the report directories'
// names, and the disk budget that removes the oldest of its own reports, and nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/temp_dir.h"
#include "watch/budget.h"

namespace hearth::watch {
namespace {

constexpr int64_t kWatchSec = 1'000'000'000;

TEST(WatchBudget, CooldownThenTheHourlyCountHoldBackTriggers) {
  TriggerGate gate(Budget{.cooldown_s = 60, .per_hour = 2, .total = 0, .disk_bytes = 0});
  EXPECT_FALSE(gate.refused(0));
  gate.fired(0);
  auto why = gate.refused(59 * kWatchSec);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "cooling down for 1 s more after the last report");
  EXPECT_FALSE(gate.refused(60 * kWatchSec));
  gate.fired(60 * kWatchSec);
  why = gate.refused(200 * kWatchSec);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "2 reports in the last hour, the most --per-hour allows");
  EXPECT_TRUE(gate.refused(3599 * kWatchSec));
  EXPECT_FALSE(gate.refused(3601 * kWatchSec));  // the first is more than an hour old
  EXPECT_FALSE(gate.done());
}

TEST(WatchBudget, TheTotalEndsTheWatcher) {
  TriggerGate gate(Budget{.cooldown_s = 0, .per_hour = 10, .total = 2, .disk_bytes = 0});
  gate.fired(0);
  EXPECT_FALSE(gate.done());
  gate.fired(kWatchSec);
  EXPECT_TRUE(gate.done());
  ASSERT_TRUE(gate.refused(2 * kWatchSec));
}

TEST(WatchBudget, ReportNamesSortByTimeAndKeepRuleNamesSafe) {
  // 2026-11-28 09:30:12 UTC
  const int64_t t = 1795858212LL * kWatchSec + 999'000'000;
  EXPECT_EQ(report_dir_name(t, "slow_disk"), "20261128T093012Z-slow_disk");
  EXPECT_EQ(report_dir_name(t, "a/b c"), "20261128T093012Z-a_b_c");
  EXPECT_TRUE(is_report_dir_name("20261128T093012Z-slow_disk"));
  EXPECT_FALSE(is_report_dir_name("20261128T093012Z"));
  EXPECT_FALSE(is_report_dir_name("notes-20261128T093012Z-x"));
  EXPECT_FALSE(is_report_dir_name("2026112xT093012Z-x"));
}

TEST(WatchBudget, TheDiskBudgetRemovesTheOldestOwnReportsOnly) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  auto report = [&](const std::string& name, size_t bytes) {
    std::filesystem::create_directories(dir / name);
    std::ofstream(dir / name + "/report.json") << "{}";
    std::ofstream(dir / name + "/stacks.folded") << std::string(bytes, 'x');
  };
  report("20261128T090000Z-a", 1000);
  report("20261128T100000Z-b", 1000);
  report("20261128T110000Z-c", 1000);
  std::filesystem::create_directories(dir / "notes");  // not a report: never counted, never removed
  std::ofstream(dir / "notes/big") << std::string(10000, 'y');
  std::filesystem::create_directories(dir / "20261128T080000Z-half");  // no report.json
  // Each report is 1002 bytes: 3006 in all. A budget of 2100 removes the oldest only.
  EXPECT_EQ(enforce_disk_budget(dir.path(), 2100, "20261128T110000Z-c"),
            std::vector<std::string>{"20261128T090000Z-a"});
  EXPECT_TRUE(std::filesystem::exists(dir / "20261128T100000Z-b"));
  // A budget below the newest alone: every other goes, the one just written stays.
  EXPECT_EQ(enforce_disk_budget(dir.path(), 10, "20261128T110000Z-c"),
            std::vector<std::string>{"20261128T100000Z-b"});
  EXPECT_TRUE(std::filesystem::exists(dir / "20261128T110000Z-c/report.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "notes/big"));
  EXPECT_TRUE(std::filesystem::exists(dir / "20261128T080000Z-half"));
}

}  // namespace
}  // namespace hearth::watch
