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

std::string range_bomb(int count) {
  std::string spec = "Range: bytes=0-3000000";
  for (int i = 1; i < count; ++i) spec += ",0-3000000";
  return spec + "\r\n";
}

TEST_F(ServeHostile, OneRangeIsAPartialAnswerOfExactlyThoseBytes) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  auto r = get(s.port(), "/r1/big.bin", "Range: bytes=0-99\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->headers["content-range"], "bytes 0-99/3300000");
  EXPECT_EQ(r->body, big_.substr(0, 100));
  auto tail = get(s.port(), "/r1/big.bin", "Range: bytes=-100\r\n");
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->status, 206);
  EXPECT_EQ(tail->headers["content-range"], "bytes 3299900-3299999/3300000");
  EXPECT_EQ(tail->body, big_.substr(kBigBytes - 100));
  // Overlapping ranges are merged into one.
  auto merged = get(s.port(), "/r1/big.bin", "Range: bytes=100-199, 150-299\r\n");
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->status, 206);
  EXPECT_EQ(merged->headers["content-range"], "bytes 100-299/3300000");
  EXPECT_EQ(merged->body, big_.substr(100, 200));
  // A partial answer is never compressed; a whole one is, and says it takes ranges.
  auto part = get(s.port(), "/r1/flame.svg", "Range: bytes=10-19\r\nAccept-Encoding: gzip\r\n");
  ASSERT_TRUE(part);
  EXPECT_EQ(part->status, 206);
  EXPECT_EQ(part->headers.count("content-encoding"), 0u);
  EXPECT_EQ(part->body, svg_.substr(10, 10));
  auto whole = get(s.port(), "/r1/flame.svg", "Accept-Encoding: gzip, deflate, br\r\n");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 200);
  EXPECT_EQ(whole->headers["content-encoding"], "gzip") << "gzip, never brotli";
  EXPECT_EQ(whole->headers["accept-ranges"], "bytes");
  // HEAD ignores Range (RFC 9110 defines it for GET only).
  auto head = request(s.port(), "HEAD /r1/big.bin HTTP/1.1", "Range: bytes=0-99\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["content-length"], std::to_string(kBigBytes));
  EXPECT_TRUE(head->body.empty());
}

TEST_F(ServeHostile, SeveralRangesAreMultipartUpToFourElseTheWholeFile) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  auto two = get(s.port(), "/r1/big.bin", "Range: bytes=0-9,1000-1009\r\n");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->status, 206);
  std::string type = two->headers["content-type"];
  ASSERT_EQ(type.rfind("multipart/byteranges; boundary=", 0), 0u) << type;
  std::string boundary = type.substr(type.find('=') + 1);
  std::string expected = "--" + boundary +
                         "\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes "
                         "0-9/3300000\r\n\r\n" +
                         big_.substr(0, 10) + "\r\n--" + boundary +
                         "\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes "
                         "1000-1009/3300000\r\n\r\n" +
                         big_.substr(1000, 10) + "\r\n--" + boundary + "--\r\n";
  EXPECT_EQ(two->body, expected);
  EXPECT_EQ(two->headers["content-length"], std::to_string(expected.size()));
  for (const char* ignored :
       {"Range: bytes=0-1,3-4,6-7,9-10,12-13\r\n", "Range: bytes=abc\r\n", "Range: bytes=9-5\r\n",
        "Range: items=0-9\r\n", "Range: bytes=0-9\r\nIf-Range: \"x\"\r\n"}) {
    auto r = get(s.port(), "/r1/big.bin", ignored);
    ASSERT_TRUE(r) << ignored;
    EXPECT_EQ(r->status, 200) << ignored;
    EXPECT_EQ(r->body.size(), kBigBytes) << ignored;
    EXPECT_TRUE(r->body == big_) << ignored;
  }
  auto none = get(s.port(), "/r1/big.bin", "Range: bytes=5000000-\r\n");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 416);
  EXPECT_EQ(none->headers["content-range"], "bytes */3300000");
}

TEST_F(ServeHostile, ARangeBombGetsOneFileAtMost) {
  Server s({root_.string(), "--port", "0", "-q"}, {.address_space = size_t{4} << 30});
  ASSERT_GT(s.port(), 0) << s.url_line();
  // cpp-httplib alone sent all 200 ranges: a 600 MB answer built in memory.
  auto r = get(s.port(), "/r1/big.bin", range_bomb(200));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), kBigBytes);
  EXPECT_TRUE(r->body == big_);
  long peak = proc_status_kb(s.pid(), "VmHWM");
  RecordProperty("server_peak_kb", std::to_string(peak));
  EXPECT_GT(peak, 0);
  if (!kSanitized) {
    EXPECT_LE(peak, kPeakBoundKb);
  }
}

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

// Sends BYTES (repeated) until the server stops taking them or LIMIT bytes are sent; the bytes
// the server took.
size_t push_until_refused(int fd, const std::string& bytes, size_t limit) {
  size_t sent = 0;
  while (sent < limit && send_all(fd, bytes)) sent += bytes.size();
  return sent;
}

TEST_F(ServeHostile, EndlessRequestHeadsAreCutShort) {
  Server s({root_.string(), "--port", "0", "-q"}, {.address_space = size_t{4} << 30});
  ASSERT_GT(s.port(), 0) << s.url_line();
  long before = proc_status_kb(s.pid(), "VmHWM");
  // One header line that never ends, then header lines without end: 64 MB each at most.
  int line = connect_to(s.port());
  ASSERT_GE(line, 0);
  ASSERT_TRUE(send_all(line, "GET / HTTP/1.1\r\nX-Long: "));
  push_until_refused(line, std::string(1 << 20, 'a'), size_t{64} << 20);
  ::close(line);
  int lines = connect_to(s.port());
  ASSERT_GE(lines, 0);
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "a:b\r\n";
  ASSERT_TRUE(send_all(lines, "GET / HTTP/1.1\r\n"));
  push_until_refused(lines, many, size_t{64} << 20);
  ::close(lines);
  // 101 header lines are answered, not read for ever: 431.
  std::string extra;
  for (int i = 0; i < 101; ++i) extra += "X-" + std::to_string(i) + ": 1\r\n";
  auto refused = get(s.port(), "/r1/", extra);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 431);
  auto fine = get(s.port(), "/r1/");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
  long peak = proc_status_kb(s.pid(), "VmHWM");
  RecordProperty("server_peak_growth_kb", std::to_string(peak - before));
  if (!kSanitized) {
    EXPECT_LE(peak - before, 16 * 1024) << "kB grown while reading endless heads";
  }
}

TEST_F(ServeHostile, AHeadSentAByteAtATimeIsCut) {
  Server s({root_.string(), "--port", "0", "-q", "--head-timeout", "2"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  int fd = connect_to(s.port());
  ASSERT_GE(fd, 0);
  // A byte every 250 ms never hits the 5 s read timeout; the head as a whole must arrive within
  // 2 s (--head-timeout). 60 s is only the bound that keeps a server that never cuts from
  // hanging the test.
  bool cut = false;
  std::string head = "GET /r1/ HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  auto deadline = std::chrono::steady_clock::now() + 60s;
  for (size_t i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
    if (!send_all(fd, std::string(1, i < head.size() ? head[i] : 'a'))) {
      cut = true;
      break;
    }
    char c;
    ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
      cut = true;
      break;
    }
    std::this_thread::sleep_for(250ms);
  }
  ::close(fd);
  EXPECT_TRUE(cut) << "the server still waited for the head after 60 s";
}

TEST_F(ServeHostile, TheListenBacklogTakesABurstOfConnections) {
  // cpp-httplib listens with a backlog of 5: the SYNs of a burst beyond it are dropped and
  // retried after 1 s, then 3 s. `ss` shows a listening socket's backlog as its Send-Q.
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  std::string cmd = "ss -Hltn 'sport = :" + std::to_string(s.port()) + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[256] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  int status = ::pclose(p);
  if (WEXITSTATUS(status) == 127 || n == 0)
    GTEST_SKIP() << "no `ss` (iproute2) to read the backlog";
  // "LISTEN 0      4096   127.0.0.1:40095 0.0.0.0:*"
  std::istringstream line(std::string(buf, n));
  std::string state;
  long recv_q = -1, send_q = -1;
  line >> state >> recv_q >> send_q;
  EXPECT_EQ(state, "LISTEN") << buf;
  EXPECT_GE(send_q, 128) << buf;
}

TEST_F(ServeHostile, FiftyHostileClientsWhileAnHonestOneIsServed) {
  Server s({root_.string(), "--port", "0", "-q"}, {.address_space = size_t{4} << 30});
  ASSERT_GT(s.port(), 0) << s.url_line();
  const int port = s.port();
  std::atomic<int> started{0};
  std::vector<int> held;  // half-sent requests, closed at the end
  std::mutex held_mu;
  std::vector<std::thread> clients;
  for (int i = 0; i < 50; ++i) {
    clients.emplace_back([&, i] {
      int fd = connect_to(port);
      if (fd < 0) {
        ++started;
        return;
      }
      switch (i % 5) {
        case 0:  // 200 ranges of the big file, read to the end
          send_all(fd, "GET /r1/big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                           range_bomb(200) + "\r\n");
          ++started;
          read_to_end(fd, 60s);
          break;
        case 1:  // the big SVG in brotli, read to the end
          send_all(fd,
                   "GET /r1/flame.svg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                   "Accept-Encoding: br\r\n\r\n");
          ++started;
          read_to_end(fd, 60s);
          break;
        case 2:  // a header line without end
          send_all(fd, "GET / HTTP/1.1\r\nX-Long: ");
          ++started;
          push_until_refused(fd, std::string(1 << 20, 'a'), size_t{16} << 20);
          break;
        case 3: {  // header lines without end
          send_all(fd, "GET /r1/flame.svg HTTP/1.1\r\n");
          ++started;
          std::string lines;
          for (int j = 0; j < 20000; ++j) lines += "a:b\r\n";
          push_until_refused(fd, lines, size_t{16} << 20);
          break;
        }
        case 4: {  // half a request, held open
          send_all(fd, "GET /r1/big.bin HTTP/1.1\r\nHost: x\r\nX-Slow: ");
          ++started;
          std::lock_guard lock(held_mu);
          held.push_back(fd);
          return;
        }
      }
      ::close(fd);
    });
  }
  for (int i = 0; i < 600 && started < 50; ++i) std::this_thread::sleep_for(50ms);
  auto honest = get(port, "/r1/flame.svg", "Accept-Encoding: gzip, deflate, br\r\n");
  auto plain = get(port, "/r1/big.bin");
  for (std::thread& t : clients) t.join();
  long peak = proc_status_kb(s.pid(), "VmHWM");
  RecordProperty("server_peak_kb", std::to_string(peak));
  for (int fd : held) ::close(fd);

  ASSERT_TRUE(s.alive());
  ASSERT_TRUE(honest);
  EXPECT_EQ(honest->status, 200);
  EXPECT_EQ(honest->headers["content-encoding"], "gzip");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200);
  EXPECT_TRUE(plain->body == big_);
  EXPECT_GT(peak, 0);
  if (!kSanitized) {
    EXPECT_LE(peak, kPeakBoundKb) << "kB at the server's peak, bound 2 x " << kBigBytes
                                  << " bytes + 50 MB";
  }
  auto after = get(port, "/r1/big.bin", "Range: bytes=0-99\r\n");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 206);
}

}  // namespace
