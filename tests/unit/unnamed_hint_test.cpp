// The summary's hint when many frames have no name (stripped modules without debug files).
#include <gtest/gtest.h>

#include <string>

#include "bin/hearth/sampler_cli.h"

namespace hearth::cli {
namespace {

TEST(UnnamedHint, SaysNothingBelowTheShare) {
  stacks::UnnamedFrames f;
  EXPECT_EQ(unnamed_hint(f), "");  // no frames at all
  f.frames = 100;
  f.unnamed = 9;  // libstdc++'s std::thread entry in every stack is ~1 frame in 25
  f.by_module = {{"libstdc++.so.6.0.30", 9}};
  EXPECT_EQ(unnamed_hint(f), "");
}

TEST(UnnamedHint, NamesTheModulesMostUnnamedFirst) {
  stacks::UnnamedFrames f;
  f.frames = 200;
  f.unnamed = 46;
  f.by_module = {{"app", 30}, {"libfoo.so.1", 10}, {"libbar.so", 4}, {"libbaz.so", 2}};
  const std::string hint = unnamed_hint(f);
  EXPECT_EQ(hint.rfind("23% of the frames have no name, most in app, libfoo.so.1 and libbar.so "
                       "(and 1 more): ",
                       0),
            0u)
      << hint;
  EXPECT_NE(hint.find("/usr/lib/debug/.build-id/"), std::string::npos) << hint;
  f.by_module = {{"app", 46}};
  EXPECT_EQ(unnamed_hint(f).rfind("23% of the frames have no name, most in app: ", 0), 0u);
}

}  // namespace
}  // namespace hearth::cli
