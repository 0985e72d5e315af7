// The summary's hints about JIT-compiled code: no perf map (which flag writes one), or a map but
// stacks cut short in JIT code (which flag keeps frame pointers).
#include <gtest/gtest.h>

#include <string>

#include "bin/hearth/sampler_cli.h"

namespace hearth::cli {
namespace {

TEST(JitHint, WithoutAMapNamesTheFlagsThatWriteOne) {
  stacks::UnnamedFrames f;
  EXPECT_EQ(jit_hint(f), "");  // no samples
  f.samples = 100;
  f.unknown = 9;
  f.jit = 9;
  f.perf_map_path = "/proc/42/root/tmp/perf-42.map";
  EXPECT_EQ(jit_hint(f), "");  // below the share
  f.unknown = 30;
  const std::string hint = jit_hint(f);
  EXPECT_EQ(hint.rfind("30% of the stacks run through code outside any file", 0), 0u) << hint;
  EXPECT_NE(hint.find("jcmd PID Compiler.perfmap"), std::string::npos) << hint;
  EXPECT_NE(hint.find("--perf-basic-prof"), std::string::npos) << hint;
}

TEST(JitHint, WithAMapStacksCutInJitCodeNameTheFramePointerFlag) {
  stacks::UnnamedFrames f;
  f.perf_map = true;
  f.samples = 440;  // 22 threads: 2 busy in compiled code, 4 more in interpreted code
  f.jit = 120;
  f.lost_in_jit = 10;
  EXPECT_EQ(jit_hint(f), "");  // below the share of the stacks through JIT code
  f.lost_in_jit = 40;
  const std::string hint = jit_hint(f);
  EXPECT_EQ(hint.rfind("33% of the stacks through JIT-compiled code stop in it", 0), 0u) << hint;
  EXPECT_NE(hint.find("-XX:+PreserveFramePointer"), std::string::npos) << hint;
  f.lost_in_jit = 0;  // frame pointers kept: complete stacks, nothing to say
  EXPECT_EQ(jit_hint(f), "");
}

}  // namespace
}  // namespace hearth::cli
