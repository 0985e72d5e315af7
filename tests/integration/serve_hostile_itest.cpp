// `hearth serve` against hostile clients: Range fields that multiply a file, hidden files,
// request heads without end, clients that never finish, and fifty of them at once while an
// honest client is served. Memory is measured as the server's peak resident set (VmHWM).
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/serve_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace hearth::serve_test;

constexpr size_t kBigBytes = 3300000;
// What the server may hold at its peak: twice the largest file it serves, and 50 MB for
// itself, its threads and the clients' buffers.
constexpr long kPeakBoundKb = static_cast<long>(2 * kBigBytes / 1024) + 50 * 1024;

class ServeHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("hearth-serve-hostile-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "reports";
    fs::create_directories(root_ / "r1");
    big_.resize(kBigBytes);
    for (size_t i = 0; i < big_.size(); ++i) big_[i] = static_cast<char>((i * 7 + i / 251) % 256);
    write(root_ / "r1/big.bin", big_);
    svg_ = "<svg xmlns=\"http://www.w3.org/2000/svg\">";
    while (svg_.size() < kBigBytes - 64)
      svg_ += "<rect x=\"" + std::to_string(svg_.size()) + "\"/>\n";
    svg_ += "</svg>";
    write(root_ / "r1/flame.svg", svg_);
    write(root_ / "r1/index.html", "<html>report</html>");
  }
  void TearDown() override { fs::remove_all(base_); }

  static void write(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }

  fs::path base_, root_;
  std::string big_, svg_;
};

TEST_F(ServeHostile, HiddenFilesAreNotFound) {
  fs::create_directories(root_ / ".git");
  fs::create_directories(root_ / "r1/.hidden");
  write(root_ / ".env", "TOP SECRET");
  write(root_ / ".git/config", "TOP SECRET");
  write(root_ / "r1/.hidden/x", "TOP SECRET");
  fs::create_symlink(".env", root_ / "r1-env");
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  for (const char* target : {"/.env", "/.git/config", "/.git/", "/r1/.hidden/x", "/r1-env",
                             "/%2eenv", "/r1/%2Ehidden/x"}) {
    auto r = get(s.port(), target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 404) << target;
    EXPECT_EQ(r->body.find("TOP SECRET"), std::string::npos) << target;
  }
  auto listing = get(s.port(), "/");
  ASSERT_TRUE(listing);
  EXPECT_EQ(listing->body.find(".env"), std::string::npos) << listing->body;
  EXPECT_EQ(listing->body.find(".git"), std::string::npos) << listing->body;
}

}  // namespace
