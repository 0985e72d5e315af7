// One temporary directory per test process (see tests/support/temp_dir_environment.h).
#include "tests/support/temp_dir_environment.h"

namespace {

TEST(TempDir, IsThisProcesssOwnAndExists) {
  std::string dir = ::testing::TempDir();
  EXPECT_EQ(dir.rfind("/tmp/hearth-test.", 0), 0u) << dir;
  EXPECT_TRUE(std::filesystem::is_directory(dir)) << dir;
}

}  // namespace
