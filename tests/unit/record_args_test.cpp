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

}  // namespace
}  // namespace hearth::cli
