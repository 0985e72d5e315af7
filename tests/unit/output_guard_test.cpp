#include "common/output_guard.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/temp_dir.h"

namespace hearth {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The error of check_outputs, or "" when it passes.
std::string refusal(const std::vector<std::string>& inputs,
                    const std::vector<std::string>& outputs) {
  Result<void> r = check_outputs(inputs, outputs);
  return r ? "" : r.error().message;
}

class OutputGuard : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    put(in("base.folded"), "a;b 1\n");
    put(in("new.folded"), "a;c 1\n");
  }
  std::string in(const std::string& name) const { return dir_ / name; }

  TempDir dir_;
};

TEST_F(OutputGuard, DistinctFilesPass) {
  put(in("old.svg"), "<svg/>");
  EXPECT_EQ(refusal({in("base.folded"), in("new.folded")}, {in("old.svg"), in("new.md")}), "");
  EXPECT_EQ(refusal({}, {}), "");
}

TEST_F(OutputGuard, SamePathIsRefused) {
  EXPECT_EQ(refusal({in("base.folded"), in("new.folded")}, {in("d.svg"), in("base.folded")}),
            "output " + in("base.folded") + " is also an input (" + in("base.folded") +
                ") — choose another name");
}

TEST_F(OutputGuard, OtherSpellingOfThePathIsRefused) {
  std::string dotted = dir_.path() + "/./sub/../base.folded";
  fs::create_directory(in("sub"));
  EXPECT_NE(refusal({in("base.folded")}, {dotted}), "");
}

TEST_F(OutputGuard, SymlinkToAnInputIsRefused) {
  fs::create_symlink(in("new.folded"), in("link.folded"));
  EXPECT_EQ(refusal({in("base.folded"), in("new.folded")}, {in("link.folded")}),
            "output " + in("link.folded") + " is also an input (" + in("new.folded") +
                ") — choose another name");
  // And the other way round: the input is the link.
  EXPECT_NE(refusal({in("link.folded")}, {in("new.folded")}), "");
}

TEST_F(OutputGuard, SymlinkedDirectoryIsRefused) {
  fs::create_directory_symlink(dir_.path(), in("again"));
  EXPECT_NE(refusal({in("base.folded")}, {in("again") + "/base.folded"}), "");
}

TEST_F(OutputGuard, HardLinkOfAnInputIsRefused) {
  fs::create_hard_link(in("base.folded"), in("hard.folded"));
  EXPECT_EQ(refusal({in("base.folded")}, {in("hard.folded")}),
            "output " + in("hard.folded") + " is also an input (" + in("base.folded") +
                ") — choose another name");
}

TEST_F(OutputGuard, TwoOutputsThatAreOneFileAreRefused) {
  // Neither exists yet: compared by where they would be created.
  EXPECT_EQ(refusal({}, {in("s.md"), dir_.path() + "/./s.md"}),
            "outputs " + in("s.md") + " and " + dir_.path() +
                "/./s.md are the same file — choose another name");
  put(in("s.md"), "x");
  fs::create_hard_link(in("s.md"), in("t.md"));
  EXPECT_NE(refusal({}, {in("s.md"), in("t.md")}), "");
  EXPECT_EQ(refusal({}, {in("s.md"), in("u.md")}), "");
}

TEST_F(OutputGuard, MissingInputsAndNonRegularFilesNeverCollide) {
  EXPECT_EQ(refusal({in("nope.folded")}, {in("nope.folded")}), "");
  EXPECT_EQ(refusal({"/dev/null"}, {"/dev/null"}), "");
  EXPECT_EQ(refusal({dir_.path()}, {dir_.path()}), "");
  EXPECT_EQ(refusal({}, {"-", "-"}), "");  // standard output written twice, in turn
}

TEST_F(OutputGuard, DanglingSymlinkOutputsAreComparedByTheirPlace) {
  fs::create_symlink(in("nowhere"), in("dangling.svg"));
  EXPECT_EQ(refusal({in("base.folded")}, {in("dangling.svg")}), "");
  EXPECT_NE(refusal({}, {in("dangling.svg"), dir_.path() + "/./dangling.svg"}), "");
}

// Standard input redirected from a file is that file: writing over it loses it.
TEST_F(OutputGuard, StandardInputIsItsFile) {
  int saved = ::dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  int fd = ::open(in("base.folded").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, STDIN_FILENO), STDIN_FILENO);
  std::string same = refusal({"-"}, {in("base.folded")});
  std::string other = refusal({"-"}, {in("new.folded")});
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  ::close(fd);
  EXPECT_EQ(same, "output " + in("base.folded") + " is also an input (-) — choose another name");
  EXPECT_EQ(other, "");
}

}  // namespace
}  // namespace hearth
