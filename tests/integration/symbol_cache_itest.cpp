// The on-disk symbol cache on a real process: `hearth stacks` names the same stacks the same
// way with no cache, a cold one, a warm one, a damaged entry, and a planted one (wrong mode or
// owner), which is ignored with a warning.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

namespace fs = std::filesystem;
using hearth::testing_support::fresh_dir;
using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;
using hearth::testing_support::Target;

// The folded output without the heartbeat thread, which runs every 100 µs and so may be caught
// anywhere in its loop: every other thread of the target blocks where it was left.
std::string steady_lines(const std::string& folded) {
  std::string out;
  for (const std::string& l : hearth::testing_support::split(folded, '\n'))
    if (!l.starts_with("[heartbeat")) out += l + "\n";
  return out;
}

struct CacheRuns : ::testing::Test {
  void SetUp() override {
    target = Target::start("stack_target-fp", {"--threads", "6", "--depth", "5", "--spin", "0"});
    ASSERT_TRUE(target);
    dir = fresh_dir("symbol-cache");
  }
  HearthRun snapshot(const std::string& cache) {
    return run_hearth({"stacks", "-p", std::to_string(target->pid()), "-n", "1", "-o", "-", "-v",
                       "--symbol-cache", cache});
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".sym") out.push_back(e.path());
    return out;
  }
  std::unique_ptr<Target> target;
  fs::path dir;
};

TEST_F(CacheRuns, TheSameNamesWithoutCacheColdWarmAndDamaged) {
  HearthRun off = snapshot("off");
  ASSERT_EQ(WEXITSTATUS(off.status), 0) << off.err;
  EXPECT_NE(off.err.find("cache off"), std::string::npos) << off.err;
  const std::string want = steady_lines(off.out);
  ASSERT_NE(want.find("leaf_mutex"), std::string::npos) << off.out;

  HearthRun cold = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(cold.status), 0) << cold.err;
  EXPECT_EQ(steady_lines(cold.out), want);
  EXPECT_NE(cold.err.find(" 0 entries read"), std::string::npos) << cold.err;
  ASSERT_FALSE(entries().empty()) << cold.err;
  for (const fs::path& p : entries()) {
    struct stat st;
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << p;
  }

  HearthRun warm = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(warm.status), 0) << warm.err;
  EXPECT_EQ(steady_lines(warm.out), want);
  EXPECT_EQ(warm.err.find(" 0 entries read"), std::string::npos) << warm.err;
  EXPECT_EQ(warm.err.find("names: 0 from the cache"), std::string::npos) << warm.err;

  // Every entry cut in half, and one with a line changed into garbage: refused and rebuilt.
  for (const fs::path& p : entries()) {
    std::string text = hearth::testing_support::slurp(p);
    fs::resize_file(p, text.size() / 2);
  }
  HearthRun damaged = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(damaged.status), 0) << damaged.err;
  EXPECT_EQ(steady_lines(damaged.out), want);
  EXPECT_NE(damaged.err.find("refused"), std::string::npos) << damaged.err;
  EXPECT_EQ(damaged.err.find(" 0 refused"), std::string::npos) << damaged.err;
  HearthRun rebuilt = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(rebuilt.status), 0) << rebuilt.err;
  EXPECT_EQ(steady_lines(rebuilt.out), want);
  EXPECT_NE(rebuilt.err.find(" 0 refused"), std::string::npos) << rebuilt.err;
}

TEST_F(CacheRuns, APlantedEntryOrDirectoryIsIgnoredWithAWarning) {
  HearthRun first = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(first.status), 0) << first.err;
  const std::string want = steady_lines(first.out);
  std::vector<fs::path> all = entries();
  ASSERT_GE(all.size(), 2u) << first.err;
  // One entry writable by others, another owned by someone else.
  ASSERT_EQ(::chmod(all[0].c_str(), 0666), 0);
  ASSERT_EQ(::chown(all[1].c_str(), 65534, 65534), 0);
  HearthRun planted = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(planted.status), 0) << planted.err;
  EXPECT_EQ(steady_lines(planted.out), want);
  EXPECT_NE(planted.err.find("ignoring symbol cache entry " + all[0].string() +
                             ": writable by others"),
            std::string::npos)
      << planted.err;
  EXPECT_NE(planted.err.find("ignoring symbol cache entry " + all[1].string() +
                             ": owned by uid 65534"),
            std::string::npos)
      << planted.err;

  // The directory itself writable by others: not used at all.
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  HearthRun open_dir = snapshot(dir);
  ASSERT_EQ(WEXITSTATUS(open_dir.status), 0) << open_dir.err;
  EXPECT_EQ(steady_lines(open_dir.out), want);
  EXPECT_NE(open_dir.err.find("not using the symbol cache " + dir.string() +
                              ": writable by others"),
            std::string::npos)
      << open_dir.err;
  EXPECT_NE(open_dir.err.find("names: 0 from the cache"), std::string::npos) << open_dir.err;
}

}  // namespace
