// `hearth record`'s options checked alone (validate_record), before anything runs.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bin/hearth/cmd_record.h"

namespace hearth::cli {
namespace {

bool has_problem(const std::vector<std::string>& problems, const std::string& what) {
  return std::find(problems.begin(), problems.end(), what) != problems.end();
}

TEST(RecordArgs, MethodIsOneOfTheSamplersCaptures) {
  RecordArgs a;
  a.pids = {::getpid()};
  a.output = "unused";
  EXPECT_EQ(a.method, "auto");
  EXPECT_TRUE(validate_record(a).empty());
  for (const char* m : {"auto", "bpf", "ptrace"}) {
    a.method = m;
    EXPECT_TRUE(validate_record(a).empty()) << m;
  }
  a.method = "gdb";
  a.frequency = 0;
  std::vector<std::string> problems = validate_record(a);
  EXPECT_TRUE(has_problem(problems, "--method must be auto, bpf or ptrace"));
  EXPECT_TRUE(
      has_problem(problems, "-F must be above 0 and at most 1000 Hz"));  // all reported at once
}

// --intervals: 0 (slots only) to a week; the default keeps a minute whole.
TEST(RecordArgs, IntervalsFromZeroToAWeek) {
  RecordArgs a;
  a.pids = {::getpid()};
  a.output = "unused";
  EXPECT_EQ(a.intervals, 60);
  for (double s : {0.0, 0.5, 7.0 * 24 * 3600}) {
    a.intervals = s;
    EXPECT_TRUE(validate_record(a).empty()) << s;
  }
  for (double s : {-1.0, 7.0 * 24 * 3600 + 1}) {
    a.intervals = s;
    EXPECT_TRUE(
        has_problem(validate_record(a), "--intervals must be between 0 and a week (in seconds)"))
        << s;
  }
}

}  // namespace
}  // namespace hearth::cli
