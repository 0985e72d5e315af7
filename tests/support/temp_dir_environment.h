// Every test process works in a temporary directory of its own, removed when it ends:
// ::testing::TempDir() (which reads TEST_TMPDIR) points into it, so tests that name files
// there leave nothing behind in /tmp; XDG_CACHE_HOME too, so that hearth runs leave no cache
// in the user's home. Include from exactly one .cpp of a test executable.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace hearth::testing_support {

class TempDirEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    char templ[] = "/tmp/hearth-test.XXXXXX";
    if (::mkdtemp(templ) == nullptr) return;  // TempDir() stays /tmp/: tests still run
    dir_ = templ;
    ::setenv("TEST_TMPDIR", (dir_ + "/").c_str(), 1);
    // hearth's own cache (the stack symbolizer's, README "The symbol cache") goes here too.
    ::setenv("XDG_CACHE_HOME", (dir_ + "/cache").c_str(), 1);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    ::unsetenv("TEST_TMPDIR");
    ::unsetenv("XDG_CACHE_HOME");
  }

 private:
  std::string dir_;
};

inline ::testing::Environment* const kTempDirEnvironment =
    ::testing::AddGlobalTestEnvironment(new TempDirEnvironment);

}  // namespace hearth::testing_support
