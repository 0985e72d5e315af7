// The request path → file mapping of `hearth serve`: text checks, then kernel-checked opens.
#include "render/serve/safe_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "render/serve/server.h"

namespace hearth::serve {
namespace {

namespace fs = std::filesystem;

TEST(ServePath, NormalizesToARelativePath) {
  EXPECT_EQ(normalize_request_path("/").value(), "");
  EXPECT_EQ(normalize_request_path("/a/b.svg").value(), "a/b.svg");
  EXPECT_EQ(normalize_request_path("//a/./b//").value(), "a/b");
  // Already decoded once by the HTTP library; never decoded again.
  EXPECT_EQ(normalize_request_path("/%2e%2e/x").value(), "%2e%2e/x");
  EXPECT_EQ(normalize_request_path("/a..b/c..").value(), "a..b/c..");
}

TEST(ServePath, RefusesEscapesAndOddBytes) {
  for (std::string_view bad : {"", "a/b", "/..", "/../etc/passwd", "/a/../../b", "/a/..",
                               "/a\\..\\b", "/a\x01", "/a\x7f"}) {
    EXPECT_FALSE(normalize_request_path(bad).has_value()) << bad;
  }
  std::string with_nul("/flame.svg\0.png", 15);
  auto r = normalize_request_path(with_nul);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("NUL"), std::string::npos);
  EXPECT_FALSE(normalize_request_path("/" + std::string(300, 'a')).has_value());
  EXPECT_FALSE(normalize_request_path("/" + std::string(5000, 'a')).has_value());
}

TEST(ServePath, HiddenNamesAreNotFound) {
  for (std::string_view hidden : {"/.env", "/.git/config", "/a/.hidden/x", "/a/b/.c", "/...",
                                  "/..c", "/.git/", "//.ssh//id_rsa"}) {
    auto r = normalize_request_path(hidden);
    ASSERT_FALSE(r.has_value()) << hidden;
    EXPECT_EQ(r.error().errnum, ENOENT) << hidden << " (ENOENT: a 404, not a 400)";
  }
  // Dots elsewhere in a name are ordinary.
  EXPECT_EQ(normalize_request_path("/a.b/c.").value(), "a.b/c.");
  EXPECT_EQ(normalize_request_path("/x/./y").value(), "x/y");
  // `..` stays an escape (400), not a hidden name.
  EXPECT_EQ(normalize_request_path("/a/../b").error().errnum, 0);
}

class ServeOpen : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("hearth-serve-path-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_ / "root/sub");
    std::ofstream(base_ / "root/sub/in.txt") << "inside";
    std::ofstream(base_ / "outside.txt") << "secret";
    fs::create_symlink(base_ / "outside.txt", base_ / "root/abs-link");
    fs::create_symlink("../outside.txt", base_ / "root/rel-link");
    fs::create_symlink("sub/in.txt", base_ / "root/ok-link");
    fs::create_symlink("/etc", base_ / "root/etc-dir");
    root_fd_ = ::open((base_ / "root").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }
  void TearDown() override {
    if (root_fd_ >= 0) ::close(root_fd_);
    fs::remove_all(base_);
  }
  std::string read_rel(const std::string& rel) {
    auto fd = open_beneath(root_fd_, rel);
    if (!fd) return "ERR " + std::to_string(fd.error().errnum);
    char buf[64] = {};
    ssize_t n = ::read(*fd, buf, sizeof buf - 1);
    ::close(*fd);
    return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
  }
  fs::path base_;
  int root_fd_ = -1;
};

TEST_F(ServeOpen, OpensFilesAndSymlinksThatStayInside) {
  EXPECT_EQ(read_rel("sub/in.txt"), "inside");
  EXPECT_EQ(read_rel("ok-link"), "inside");
  auto dir = open_beneath(root_fd_, "");
  ASSERT_TRUE(dir.has_value());
  struct stat st {};
  ASSERT_EQ(::fstat(*dir, &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  ::close(*dir);
}

TEST_F(ServeOpen, SymlinksThatLeaveTheDirectoryAreRefused) {
  for (const char* rel : {"abs-link", "rel-link", "etc-dir/passwd", "sub/../../outside.txt"}) {
    std::string got = read_rel(rel);
    EXPECT_EQ(got.rfind("ERR ", 0), 0u) << rel << " gave " << got;
    EXPECT_EQ(got.find("secret"), std::string::npos) << rel;
  }
  EXPECT_EQ(read_rel("missing.txt"), "ERR " + std::to_string(ENOENT));
}

TEST_F(ServeOpen, SymlinksInsideToHiddenNamesAreNotFound) {
  fs::create_directories(base_ / "root/.git");
  fs::create_directories(base_ / "root/sub/.hidden");
  std::ofstream(base_ / "root/.git/config") << "secret";
  std::ofstream(base_ / "root/sub/.hidden/x") << "secret";
  std::ofstream(base_ / "root/.env") << "secret";
  fs::create_symlink(".git/config", base_ / "root/notes");
  fs::create_symlink(".git", base_ / "root/gitdir");
  fs::create_symlink("sub/.hidden", base_ / "root/h");
  fs::create_symlink(".env", base_ / "root/env");
  for (const char* rel : {"notes", "gitdir/config", "h/x", "env", "gitdir"}) {
    EXPECT_EQ(read_rel(rel), "ERR " + std::to_string(ENOENT)) << rel;
  }
  // The text check is the first layer; the opened file is judged again.
  EXPECT_EQ(read_rel(".git/config"), "ERR " + std::to_string(ENOENT));
  EXPECT_EQ(read_rel("sub/in.txt"), "inside");
  EXPECT_EQ(read_rel("ok-link"), "inside");
}

TEST_F(ServeOpen, ADirectoryServedFromUnderAHiddenOneStillServes) {
  // Only names below the served directory count: ~/.cache/reports is fine to serve.
  fs::create_directories(base_ / ".cache/reports/r1");
  std::ofstream(base_ / ".cache/reports/r1/index.html") << "report";
  int dir = ::open((base_ / ".cache/reports").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir, 0);
  auto fd = open_beneath(dir, "r1/index.html");
  ASSERT_TRUE(fd.has_value()) << fd.error().message;
  ::close(*fd);
  auto self = open_beneath(dir, "");
  ASSERT_TRUE(self.has_value()) << self.error().message;
  ::close(*self);
  ::close(dir);
}

TEST_F(ServeOpen, AFifoDoesNotBlockTheOpen) {
  ASSERT_EQ(::mkfifo((base_ / "root/fifo").c_str(), 0600), 0);
  auto fd = open_beneath(root_fd_, "fifo");  // would hang forever without O_NONBLOCK
  ASSERT_TRUE(fd.has_value());
  struct stat st {};
  ASSERT_EQ(::fstat(*fd, &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ::close(*fd);
}

TEST(ServeContentType, ByExtension) {
  EXPECT_EQ(content_type_for("a/flame.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_for("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_for("x.PNG"), "image/png");
  EXPECT_EQ(content_type_for("report.json"), "application/json");
  EXPECT_EQ(content_type_for("stacks.folded"), "text/plain; charset=utf-8");
  EXPECT_EQ(content_type_for("sched.states.tsv"), "text/tab-separated-values; charset=utf-8");
  EXPECT_EQ(content_type_for("dir.d/noext"), "application/octet-stream");
  EXPECT_EQ(content_type_for("blob.bin"), "application/octet-stream");
}

TEST(ServeLoopback, KnowsLoopbackAddresses) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
  EXPECT_FALSE(is_loopback("::"));
}

}  // namespace
}  // namespace hearth::serve
