// Speaking to `hearth serve` from integration tests: the real binary on a free port, over raw
// sockets with byte-exact requests (no client library that would clean up a hostile request
// first). Every wait is bounded, so a broken server shows as a failure, never a hung test.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hearth::serve_test {

// Built with AddressSanitizer or ThreadSanitizer (bin/test's sanitizer stages): the server
// reserves terabytes of address space for its shadow (and ASan keeps freed memory in
// quarantine), so an address-space limit stops it from starting and its peak resident set says
// nothing about hearth's own memory. Memory bounds are checked in the Release build; behaviour
// is checked in all.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

using namespace std::chrono_literals;

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

inline int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Everything FD receives until EOF or an error, or until BOUND has passed.
inline std::string read_to_end(int fd, std::chrono::seconds bound = 10s) {
  std::string raw;
  std::vector<char> buf(65536);
  auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) {
      if (std::chrono::steady_clock::now() > deadline) break;
      continue;
    }
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) break;
    raw.append(buf.data(), static_cast<size_t>(n));
  }
  return raw;
}

inline std::optional<Response> parse(const std::string& raw) {
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.compare(0, 9, "HTTP/1.1 ") != 0) return std::nullopt;
  Response r;
  r.status = std::stoi(raw.substr(9, 3));
  size_t pos = raw.find("\r\n") + 2;
  while (pos < end) {
    size_t eol = raw.find("\r\n", pos);
    std::string line = raw.substr(pos, eol - pos);
    size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    r.headers[name] = value;
    pos = eol + 2;
  }
  r.body = raw.substr(end + 4);
  return r;
}

// One request with `Connection: close`, read to EOF (10 s at most).
inline std::optional<Response> request(int port, const std::string& head_lines,
                                       const std::string& extra_headers = "") {
  int fd = connect_to(port);
  if (fd < 0) return std::nullopt;
  std::string req =
      head_lines + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extra_headers + "\r\n";
  std::string raw;
  if (send_all(fd, req)) raw = read_to_end(fd);
  ::close(fd);
  return parse(raw);
}

inline std::optional<Response> get(int port, const std::string& target,
                                   const std::string& headers = "") {
  return request(port, "GET " + target + " HTTP/1.1", headers);
}

// A field of /proc/PID/status in kB ("VmHWM": the peak resident set), -1 if unreadable.
inline long proc_status_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

struct ServerOptions {
  std::string stderr_path;   // empty: /dev/null
  size_t address_space = 0;  // RLIMIT_AS of the server, bytes; 0: unlimited
};

// `hearth serve ARGS...` in the background; the port from the line it prints.
class Server {
 public:
  explicit Server(std::vector<std::string> args, const ServerOptions& o = {}) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    args.insert(args.begin(), {HEARTH_EXE, "serve"});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string err = o.stderr_path.empty() ? "/dev/null" : o.stderr_path;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, STDERR_FILENO);
      if (o.address_space > 0 && !kSanitized) {
        rlimit lim{o.address_space, o.address_space};
        ::setrlimit(RLIMIT_AS, &lim);
      }
      ::execv(HEARTH_EXE, argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    // "hearth serve: serving DIR at http://127.0.0.1:PORT/... (Ctrl-C to stop)"
    std::string line;
    char c;
    pollfd p{out[0], POLLIN, 0};
    while (::poll(&p, 1, 10000) > 0 && ::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    url_line_ = line;
    size_t at = line.find("http://127.0.0.1:");
    if (at != std::string::npos) port_ = std::stoi(line.substr(at + 17));
  }
  ~Server() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& url_line() const { return url_line_; }
  // True while the server process has not exited (reaps it if it has).
  bool alive() {
    if (pid_ <= 0 || reaped_) return false;
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) reaped_ = true;
    return !reaped_;
  }
  // SIGINT, then the exit status (-1 if it did not exit within 10 s).
  int interrupt() {
    ::kill(pid_, SIGINT);
    for (int i = 0; i < 1000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(10ms);
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  bool reaped_ = false;
  std::string url_line_;
};

}  // namespace hearth::serve_test
