// `hearth record`'s options checked alone (validate_record), before anything runs.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bin/hearth/cmd_record.h"
#include "recording/alloc_collector.h"

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

// --alloc: bytes, count, live, comma-separated; one process; off unless given.
TEST(RecordArgs, AllocViewsAndOneProcess) {
  RecordArgs a;
  a.pids = {::getpid()};
  a.output = "unused";
  EXPECT_TRUE(validate_record(a).empty());
  for (const char* v : {"bytes", "count", "live", "bytes,live", "live,count,bytes"}) {
    a.alloc = v;
    EXPECT_TRUE(validate_record(a).empty()) << v;
  }
  auto views = recording::parse_alloc_views("live,bytes");
  ASSERT_TRUE(views.has_value());
  EXPECT_TRUE(views->bytes && views->live && !views->count);
  EXPECT_EQ(recording::alloc_views_text(*views), "bytes,live");
  for (const char* v : {"heap", "bytes,", ",", "Bytes"}) {
    a.alloc = v;
    EXPECT_TRUE(has_problem(validate_record(a),
                            "--alloc takes bytes, count or live, or several "
                            "comma-separated (bytes,live)"))
        << v;
  }
  // --alloc alone is a collector: the others may all be off.
  a.alloc = "bytes";
  a.no_stacks = a.no_sched = a.no_mmv = true;
  EXPECT_TRUE(validate_record(a).empty());
  a.alloc.clear();
  EXPECT_TRUE(has_problem(validate_record(a), "every collector is turned off"));
  a.alloc = "bytes";
  a.children = true;
  a.alloc_mean = 0;
  std::vector<std::string> problems = validate_record(a);
  EXPECT_TRUE(
      has_problem(problems, "--alloc takes one process: one -p, without --children or --comm"));
  EXPECT_TRUE(has_problem(problems, "--alloc-mean must be between 1 and 17179869184 bytes"));
}

}  // namespace
}  // namespace hearth::cli
