// The loopback Pyroscope of push_itest.cpp and what its tests share: a cpp-httplib server
// that records every request and answers as scripted (2xx, 4xx, 5xx, or nothing until released),
// a port held down, the ingest contract's check of a request, and small file helpers. Every wait
// is for an event, bounded so that a bug fails, never hangs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <cctype>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "tests/integration/hearth_cli.h"

namespace hearth::push_test {

// Folded stacks in hearth's normal form (sorted, merged) of TEXT read as FORMAT.
inline std::string push_normal_form(std::string_view text, profile::InputFormat format) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = format});
  if (format == profile::InputFormat::kPprof) {
    if (!reader.read_pprof(text, "body")) return "<not pprof>";
  } else {
    reader.read_text(text);
  }
  tree.finalize();
  return profile::to_folded(tree);
}

struct PushReceived {
  std::string method, path, content_type, tenant, authorization, user_agent, body;
  std::multimap<std::string, std::string> params;
  bool answered = false;  // the server answered it (not held, or released before hearth gave up)
  int status = 0;
};

// What the server answers the Nth request: a status, or no answer until release().
struct PushAnswer {
  int status = 200;
  bool hold = false;
};

class FakePyroscope {
 public:
  // PORT: 0 for any free one (tests that need the port before the server, reserve it first).
  explicit FakePyroscope(std::vector<PushAnswer> script = {}, int port = 0,
                         httplib::Server* server = nullptr)
      : script_(script.begin(), script.end()) {
    if (server != nullptr) {
      server_ = server;
    } else {
      owned_ = std::make_unique<httplib::Server>();
      server_ = owned_.get();
    }
    // cpp-httplib also sets SO_REUSEPORT (another listener could share the port): not here.
    server_->set_socket_options([](int sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    auto handler = [this](const httplib::Request& req, httplib::Response& res) { take(req, res); };
    server_->Post(".*", handler);
    server_->Get(".*", handler);
    port_ = port == 0 ? server_->bind_to_any_port("127.0.0.1") : port;
    bound_ = port == 0 ? port_ > 0 : server_->bind_to_port("127.0.0.1", port);
    if (bound_) thread_ = std::thread([this] { server_->listen_after_bind(); });
    for (int i = 0; i < 10000 && bound_ && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~FakePyroscope() {
    release();
    server_->stop();
    if (thread_.joinable()) thread_.join();
  }

  bool up() const { return bound_ && server_->is_running(); }
  int port() const { return port_; }
  std::string url(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_);
  }
  // Lets every held request be answered (hearth has given up on them by then).
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  // Waits (bounded: 60 s) until the server has received N requests; false if it never does.
  bool wait_received(size_t n) {
    for (int i = 0; i < 60000; ++i) {
      if (received().size() >= n) return received().size() == n;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
  std::vector<PushReceived> received() {
    std::lock_guard lock(mu_);
    return received_;
  }
  // The requests answered 2xx: what the server took.
  std::vector<PushReceived> taken() {
    std::vector<PushReceived> out;
    for (const PushReceived& r : received()) {
      if (r.answered && r.status / 100 == 2) out.push_back(r);
    }
    return out;
  }

 private:
  void take(const httplib::Request& req, httplib::Response& res) {
    PushReceived r;
    r.method = req.method;
    r.path = req.path;
    r.params = req.params;
    r.content_type = req.get_header_value("Content-Type");
    r.tenant = req.has_header("X-Scope-OrgID") ? req.get_header_value("X-Scope-OrgID") : "<none>";
    r.authorization = req.get_header_value("Authorization");
    r.user_agent = req.get_header_value("User-Agent");
    r.body = req.body;
    std::unique_lock lock(mu_);
    PushAnswer a;
    if (!script_.empty()) {
      a = script_.front();
      script_.pop_front();
    }
    const size_t index = received_.size();
    received_.push_back(r);
    if (a.hold) cv_.wait(lock, [this] { return released_; });
    received_[index].answered = !a.hold;
    received_[index].status = a.status;
    res.status = a.status;
    res.set_content(a.status / 100 == 2 ? "" : "scripted answer " + std::to_string(a.status),
                    "text/plain");
  }

  std::unique_ptr<httplib::Server> owned_;
  httplib::Server* server_ = nullptr;
  std::thread thread_;
  int port_ = -1;
  bool bound_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  std::deque<PushAnswer> script_;
  std::vector<PushReceived> received_;
};

// A port nothing listens on, held (bound, not listening) so that no other process takes it:
// connections to it are refused until it is given to a server.
class DownPort {
 public:
  DownPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~DownPort() { give_up(); }
  int port() const { return port_; }
  void give_up() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Checks R against the ingest contract, for a profile of SERVICE pushed as FORMAT, whose body
// must read back as SOURCE (folded text). Returns what is wrong, "" when nothing.
inline std::string push_contract_violation(const PushReceived& r, const std::string& service,
                                           const std::string& format, std::string_view source) {
  std::string bad;
  auto param = [&](const std::string& k) -> std::string {
    auto [b, e] = r.params.equal_range(k);
    if (b == e) {
      bad += "no " + k + "; ";
      return "";
    }
    if (std::next(b) != e) bad += k + " given twice; ";
    return b->second;
  };
  auto integer = [&](const std::string& k) {
    const std::string v = param(k);
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
      bad += k + "=" + v + " is not a whole number; ";
      return -1LL;
    }
    return std::stoll(v);
  };
  if (r.method != "POST") bad += "method " + r.method + "; ";
  if (r.path != "/ingest") bad += "path " + r.path + "; ";
  const std::string name = param("name");
  const long long from = integer("from"), until = integer("until");
  integer("sampleRate");
  if (from > until) bad += "from after until; ";
  if (param("spyName") != "hearth") bad += "spyName; ";
  if (const std::string f = param("format"); f != format) bad += "format " + f + "; ";
  // name: SERVICE[.TYPE]{k=v,...}, TYPE a known profile type when folded.
  const size_t brace = name.find('{');
  if (brace == std::string::npos || !name.ends_with('}')) {
    bad += "name " + name + " has no {labels}; ";
  } else {
    std::string app = name.substr(0, brace);
    if (format == "folded") {
      const size_t dot = app.rfind('.');
      const std::string type = dot == std::string::npos ? "" : app.substr(dot + 1);
      if (type != "wall" && type != "cpu") bad += "name " + name + " has no known type; ";
      app = app.substr(0, dot);
    }
    if (app != service) bad += "service " + app + "; ";
    const std::string labels = name.substr(brace + 1, name.size() - brace - 2);
    for (const std::string& kv : testing_support::split(labels, ',')) {
      if (labels.empty()) break;
      const size_t eq = kv.find('=');
      const std::string k = kv.substr(0, eq);
      if (eq == std::string::npos || k.empty() || std::isdigit(static_cast<unsigned char>(k[0])) ||
          k.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
              std::string::npos) {
        bad += "label " + kv + "; ";
      }
    }
  }
  if (format == "folded") {
    if (!r.content_type.starts_with("text/plain")) bad += "content type " + r.content_type + "; ";
    if (push_normal_form(r.body, profile::InputFormat::kFolded) !=
        push_normal_form(source, profile::InputFormat::kFolded)) {
      bad += "the folded body is not the profile: " + r.body + "; ";
    }
  } else {
    if (r.content_type != "application/octet-stream")
      bad += "content type " + r.content_type + "; ";
    if (push_normal_form(r.body, profile::InputFormat::kPprof) !=
        push_normal_form(source, profile::InputFormat::kFolded)) {
      bad += "the pprof body is not the profile: " +
             push_normal_form(r.body, profile::InputFormat::kPprof) + "; ";
    }
  }
  if (!r.user_agent.starts_with("hearth/")) bad += "user agent " + r.user_agent + "; ";
  return bad;
}

inline std::string push_file(const std::filesystem::path& dir, const std::string& name,
                             std::string_view text) {
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline size_t push_spooled(const std::filesystem::path& spool, const std::string& sub = "") {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(spool / sub, ec)) {
    n += e.path().extension() == ".push";
  }
  return n;
}

inline std::vector<std::string> push_args(const std::string& url, const std::filesystem::path& dir,
                                          std::vector<std::string> more) {
  std::vector<std::string> args{"push",      url,    "--spool",   (dir / "spool").string(),
                                "--backoff", "0.01", "--timeout", "30"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A self-signed certificate for NAMES (subjectAltName), made by the openssl command; "" when
// openssl is missing.
inline bool push_make_cert(const std::filesystem::path& dir, const std::string& san) {
  const std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
      "-days 2 -subj /CN=hearth-test -addext subjectAltName=" +
      san + " -keyout " + (dir / "key.pem").string() + " -out " + (dir / "cert.pem").string() +
      " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace hearth::push_test
