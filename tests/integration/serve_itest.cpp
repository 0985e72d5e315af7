// `hearth serve` as users run it: the real binary on a free port, spoken to over real sockets
// with byte-exact requests (no client library that would clean up a hostile path first).
// Hostile clients: serve_hostile_itest.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/serve_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace hearth::serve_test;

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("hearth-serve-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "reports";
    fs::create_directories(root_ / "older");
    fs::create_directories(root_ / "newer");
    write(root_ / "older/index.html", "<html>older report</html>");
    write(root_ / "newer/index.html", "<html>newer report</html>");
    write(root_ / "newer/report.json", "{\"target\": 1}");
    svg_ = "<svg xmlns=\"http://www.w3.org/2000/svg\">" + std::string(20000, ' ') + "</svg>";
    write(root_ / "newer/flame.svg", svg_);
    write(root_ / "newer/stacks.folded", "[main tid=1];main 1\n");
    write(base_ / "secret.txt", "TOP SECRET");
    fs::create_symlink(base_ / "secret.txt", root_ / "newer/leak.txt");
    fs::create_symlink("../../secret.txt", root_ / "newer/rel-leak.txt");
    fs::create_symlink("/etc", root_ / "etc");
    set_mtime(root_ / "older/index.html", 1700000000);
    // The oldest report has the name that sorts first: the listing's order must come from the
    // reports' times, not from the names' tie-break.
    fs::create_directories(root_ / "aaa-oldest");
    write(root_ / "aaa-oldest/index.html", "<html>oldest report</html>");
    set_mtime(root_ / "aaa-oldest/index.html", 1600000000);
    set_mtime(root_ / "newer/report.json", 1800000000);
  }
  void TearDown() override { fs::remove_all(base_); }

  static void write(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }
  static void set_mtime(const fs::path& p, time_t t) {
    timespec ts[2] = {{t, 0}, {t, 0}};
    ::utimensat(AT_FDCWD, p.c_str(), ts, 0);
  }

  fs::path base_, root_;
  std::string svg_;
};

TEST_F(Serve, PrintsItsUrlAndServesReportsWithContentTypes) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  EXPECT_NE(s.url_line().find("serving " + root_.string()), std::string::npos) << s.url_line();

  auto index = get(s.port(), "/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->headers["content-type"], "text/html; charset=utf-8");
  size_t newer = index->body.find("href=\"newer/\""), older = index->body.find("href=\"older/\"");
  ASSERT_NE(newer, std::string::npos) << index->body;
  ASSERT_NE(older, std::string::npos) << index->body;
  EXPECT_LT(newer, older) << "newest report first";
  size_t oldest = index->body.find("href=\"aaa-oldest/\"");
  ASSERT_NE(oldest, std::string::npos) << index->body;
  EXPECT_LT(older, oldest) << "oldest report last, whatever its name";

  auto svg = get(s.port(), "/newer/flame.svg");
  ASSERT_TRUE(svg);
  EXPECT_EQ(svg->status, 200);
  EXPECT_EQ(svg->headers["content-type"], "image/svg+xml");
  EXPECT_EQ(svg->headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(svg->body, svg_);

  auto report = get(s.port(), "/newer/");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->body, "<html>newer report</html>");
  auto folded = get(s.port(), "/newer/stacks.folded");
  ASSERT_TRUE(folded);
  EXPECT_EQ(folded->headers["content-type"], "text/plain; charset=utf-8");
  auto json = get(s.port(), "/newer/report.json");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->headers["content-type"], "application/json");

  auto redirect = get(s.port(), "/newer");
  ASSERT_TRUE(redirect);
  EXPECT_EQ(redirect->status, 301);
  EXPECT_EQ(redirect->headers["location"], "/newer/");
  auto missing = get(s.port(), "/nope.svg");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(s.interrupt(), 0);
}

TEST_F(Serve, NeverServesOutsideTheDirectory) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  const std::vector<std::string> attacks = {
      "/../secret.txt",
      "/newer/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/newer/%2e%2e/%2e%2e/secret.txt",
      "/%252e%252e/secret.txt",
      "/..%2fsecret.txt",
      "/newer/..%5c..%5csecret.txt",
      "/newer/leak.txt",
      "/newer/rel-leak.txt",
      "/etc/passwd",
      "/etc/hostname",
      "//etc/passwd",
      "/newer/flame.svg%00.txt",
      "/%00../secret.txt",
      "http://127.0.0.1/../secret.txt",
      "/" + base_.string() + "/secret.txt",
  };
  for (const std::string& target : attacks) {
    auto r = get(s.port(), target);
    if (!r) continue;  // the server may drop a malformed request: also safe
    EXPECT_NE(r->status, 200) << target;
    EXPECT_EQ(r->body.find("TOP SECRET"), std::string::npos) << target;
    EXPECT_EQ(r->body.find("root:"), std::string::npos) << target;
  }
  // The server still answers afterwards.
  auto ok = get(s.port(), "/newer/flame.svg");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(Serve, HeadAndReadOnlyMethods) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  auto head = request(s.port(), "HEAD /newer/flame.svg HTTP/1.1");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["content-type"], "image/svg+xml");
  EXPECT_EQ(head->headers["content-length"], std::to_string(svg_.size()));
  EXPECT_TRUE(head->body.empty());
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    auto r = request(s.port(), std::string(method) + " /newer/flame.svg HTTP/1.1",
                     "Content-Length: 0\r\n");
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->status, 405) << method;
    EXPECT_EQ(r->headers["allow"], "GET, HEAD") << method;
  }
  EXPECT_TRUE(fs::exists(root_ / "newer/flame.svg"));
}

TEST_F(Serve, CompressesTextWhenTheClientAcceptsIt) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  auto gz = get(s.port(), "/newer/flame.svg", "Accept-Encoding: gzip\r\n");
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->status, 200);
  EXPECT_EQ(gz->headers["content-encoding"], "gzip");
  EXPECT_LT(gz->body.size(), svg_.size() / 10);  // 20 kB of blanks
  auto plain = get(s.port(), "/newer/flame.svg");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->headers.count("content-encoding"), 0u);
}

TEST_F(Serve, TokenIsRequiredOnEveryRequest) {
  Server s({root_.string(), "--port", "0", "-q", "--token", "s3cr3t-T0ken"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  EXPECT_NE(s.url_line().find("?token=s3cr3t-T0ken"), std::string::npos) << s.url_line();
  for (const char* target : {"/", "/newer/flame.svg", "/newer/", "/nope"}) {
    auto r = get(s.port(), target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 401) << target;
    EXPECT_EQ(r->body.find("svg"), std::string::npos);
  }
  auto wrong = get(s.port(), "/newer/flame.svg", "Authorization: Bearer s3cr3t-T0kem\r\n");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto bearer = get(s.port(), "/newer/flame.svg", "Authorization: Bearer s3cr3t-T0ken\r\n");
  ASSERT_TRUE(bearer);
  EXPECT_EQ(bearer->status, 200);
  // In a browser: ?token= once sets a cookie and sends the browser to the same address without
  // the token; the page's own links then carry the cookie.
  auto first = get(s.port(), "/newer/?token=s3cr3t-T0ken");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 303);
  EXPECT_EQ(first->headers["location"], "/newer/");
  std::string cookie = first->headers["set-cookie"];
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  auto with_cookie = get(s.port(), "/newer/flame.svg",
                         "Cookie: other=1; " + cookie.substr(0, cookie.find(';')) + "\r\n");
  ASSERT_TRUE(with_cookie);
  EXPECT_EQ(with_cookie->status, 200);
  auto head = request(s.port(), "HEAD /newer/flame.svg HTTP/1.1");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 401);
}

TEST_F(Serve, ATokenInTheAddressIsTradedForACookieAndNeverLogged) {
  const std::string token = "s3cr3t-T0ken";
  const fs::path log = base_ / "serve.log";
  Server s({root_.string(), "--port", "0", "--token", token}, {.stderr_path = log.string()});
  ASSERT_GT(s.port(), 0) << s.url_line();
  auto first = get(s.port(), "/newer/?view=flame&token=" + token + "&x=a%20b");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 303);
  // The same address and the rest of the query, without the token.
  EXPECT_EQ(first->headers["location"], "/newer/?view=flame&x=a%20b");
  EXPECT_EQ(first->headers["location"].find(token), std::string::npos);
  std::string cookie = first->headers["set-cookie"];
  ASSERT_EQ(cookie.rfind("hearth_token=" + token + ";", 0), 0u) << cookie;
  // Lax: a link followed from another site must still carry it after the redirect
  // (tests/browser/token.test.mjs).
  EXPECT_NE(cookie.find("SameSite=Lax"), std::string::npos) << cookie;
  auto next = get(s.port(), first->headers["location"],
                  "Cookie: " + cookie.substr(0, cookie.find(';')) + "\r\n");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, "<html>newer report</html>");
  // A redirect of the root stays on this server ("//host" would leave it).
  auto root = get(s.port(), "//?token=" + token);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 303);
  EXPECT_EQ(root->headers["location"], "/");
  // The token where a path goes (a pasted URL gone wrong) is not logged either.
  auto pasted = get(s.port(), "/" + token, "Authorization: Bearer " + token + "\r\n");
  ASSERT_TRUE(pasted);
  EXPECT_EQ(pasted->status, 404);
  EXPECT_EQ(s.interrupt(), 0);

  std::ifstream in(log);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  EXPECT_NE(text.find("GET /newer/ 303"), std::string::npos) << text;
  EXPECT_NE(text.find("GET /newer/ 200"), std::string::npos) << text;
  EXPECT_NE(text.find("GET /[token] 404"), std::string::npos) << text;
  EXPECT_EQ(text.find(token), std::string::npos) << text;
}

TEST_F(Serve, SlowClientsDoNotBlockOthers) {
  Server s({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(s.port(), 0) << s.url_line();
  // More half-sent requests than cpp-httplib's default pool has threads (8 on this machine).
  std::vector<int> slow;
  for (int i = 0; i < 24; ++i) {
    int fd = connect_to(s.port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, "GET /newer/flame.svg HTTP/1.1\r\nHost: x\r\nX-Slow: "));
    slow.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);  // let the server pick them all up
  auto r = get(s.port(), "/newer/flame.svg");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // Served while every slow client still held its connection (a server that waited for them
  // would have had to time them out first, closing them).
  int still_open = 0;
  for (int fd : slow) {
    char c;
    ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) ++still_open;
    ::close(fd);
  }
  EXPECT_EQ(still_open, 24);
}

TEST_F(Serve, BadDirectoryAndBusyPortAreOneClearLine) {
  std::string cmd = std::string(HEARTH_EXE) + " serve " + (base_ / "missing").string() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  int status = ::pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::string out(buf, n);
  EXPECT_NE(out.find("not a directory"), std::string::npos) << out;

  Server first({root_.string(), "--port", "0", "-q"});
  ASSERT_GT(first.port(), 0);
  cmd = std::string(HEARTH_EXE) + " serve " + root_.string() + " --port " +
        std::to_string(first.port()) + " 2>&1";
  p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  n = fread(buf, 1, sizeof buf - 1, p);
  status = ::pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  out.assign(buf, n);
  EXPECT_NE(out.find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << out;
}

}  // namespace
