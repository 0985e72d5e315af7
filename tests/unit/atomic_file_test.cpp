#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/temp_dir.h"

namespace hearth {
namespace {

using testing_support::TempDir;

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

using Names = std::vector<std::string>;

TEST(AtomicFile, NothingAppearsBeforeCommit) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  auto f = AtomicFile::create(dir / "out.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  f->write(std::string(3 << 20, 'x'));  // past the buffer: bytes are in the file system
  EXPECT_EQ(entries(dir.path()), Names{});
  ASSERT_TRUE(f->commit().has_value());
  EXPECT_EQ(entries(dir.path()), Names{"out.txt"});
  EXPECT_EQ(slurp(dir / "out.txt").size(), size_t{3} << 20);
}

TEST(AtomicFile, OldFileStaysWholeUntilCommitThenIsReplaced) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  put(dir / "out.txt", "old\n");
  auto f = AtomicFile::create(dir / "out.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  f->write(std::string(3 << 20, 'n'));
  EXPECT_EQ(entries(dir.path()), Names{"out.txt"});
  EXPECT_EQ(slurp(dir / "out.txt"), "old\n");
  ASSERT_TRUE(f->commit().has_value());
  EXPECT_EQ(entries(dir.path()), Names{"out.txt"});
  EXPECT_EQ(slurp(dir / "out.txt"), std::string(3 << 20, 'n'));
}

// Written in 16 KiB write()s and written back in 256 KiB steps before the rename: an odd size in
// odd pieces, every byte different from its neighbours, arrives whole and in order.
TEST(AtomicFile, LargeReplacementInOddPiecesArrivesByteForByte) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  put(dir / "out.txt", std::string(5 << 20, 'o'));  // longer than the new file
  std::string want;
  for (size_t i = 0; want.size() < 1'000'003; ++i) want.push_back(static_cast<char>(i * 131 % 251));
  want.resize(1'000'003);
  auto f = AtomicFile::create(dir / "out.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  for (size_t at = 0, piece = 1; at < want.size(); at += piece, piece = piece * 3 % 40'009 + 1) {
    f->write(std::string_view(want).substr(at, piece));
  }
  ASSERT_TRUE(f->commit().has_value());
  EXPECT_EQ(entries(dir.path()), Names{"out.txt"});
  EXPECT_TRUE(slurp(dir / "out.txt") == want);
}

TEST(AtomicFile, NeverCommittedLeavesTheOldFileOrNothing) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  put(dir / "kept.txt", "old\n");
  {
    auto a = AtomicFile::create(dir / "kept.txt");
    auto b = AtomicFile::create(dir / "new.txt");
    ASSERT_TRUE(a.has_value() && b.has_value());
    a->write("new\n");
    b->write("new\n");
  }
  EXPECT_EQ(entries(dir.path()), Names{"kept.txt"});
  EXPECT_EQ(slurp(dir / "kept.txt"), "old\n");
}

TEST(AtomicFile, HonoursTheUmask) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  mode_t old = ::umask(027);
  Result<void> r = write_file_atomically(dir / "out.txt", "x");
  ::umask(old);
  ASSERT_TRUE(r.has_value());
  struct stat st;
  ASSERT_EQ(::stat((dir / "out.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicFile, ReplacesASymlinkNotItsTarget) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  put(dir / "target.txt", "target\n");
  std::filesystem::create_symlink("target.txt", dir / "link.txt");
  ASSERT_TRUE(write_file_atomically(dir / "link.txt", "new\n").has_value());
  EXPECT_EQ(slurp(dir / "target.txt"), "target\n");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "link.txt"), "new\n");
  EXPECT_EQ(entries(dir.path()), (Names{"link.txt", "target.txt"}));
}

TEST(AtomicFile, MissingDirectoryIsOneLineError) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  Result<void> r = write_file_atomically(dir / "no/such/out.txt", "x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "cannot write " + (dir / "no/such/out.txt") + ": No such file or directory");
}

// A child writes a large output through AtomicFile and is SIGKILLed while writing (it tells
// the parent through a pipe when it is under way; no timing involved). Whatever moment the
// kill lands on, the directory holds the old file, whole, or nothing.
TEST(AtomicFile, SigkillMidWriteLeavesNothingBehind) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "out.folded";
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const bool has_old = round % 2 == 0;
    std::filesystem::remove(path);
    if (has_old) put(path, "old 1\n");
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(pipe_fds[0]);
      auto f = AtomicFile::create(path);
      if (!f) ::_exit(3);
      const std::string chunk(256 << 10, 'n');
      const int before = round % 4 * 8;  // 0, 2, 4 or 6 MiB written before the signal
      for (int i = 0; i < before; ++i) f->write(chunk);
      if (::write(pipe_fds[1], "w", 1) != 1) ::_exit(4);
      for (int i = 0; i < 64; ++i) f->write(chunk);  // the kill lands somewhere in here
      ::pause();                                     // or here: never committed either way
      ::_exit(5);
    }
    ::close(pipe_fds[1]);
    char c = 0;
    ssize_t n = ::read(pipe_fds[0], &c, 1);
    ::close(pipe_fds[0]);
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_EQ(n, 1) << "the child failed before writing (exit " << WEXITSTATUS(status) << ")";
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    if (has_old) {
      EXPECT_EQ(entries(dir.path()), Names{"out.folded"});
      EXPECT_EQ(slurp(path), "old 1\n");
    } else {
      EXPECT_EQ(entries(dir.path()), Names{});
    }
  }
}

}  // namespace
}  // namespace hearth
