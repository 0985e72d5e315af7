#include "render/serve/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace hearth::serve {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Waits are cut into slices this long so that a stopping server is noticed.
constexpr milliseconds kSlice{100};

// poll() for EVENTS, at most TIMEOUT; the revents, 0 on timeout or error.
short poll_for(int sock, short events, milliseconds timeout) {
  pollfd p{sock, events, 0};
  int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
  return n > 0 ? p.revents : 0;
}

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  int r = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&a), &len)
               : ::getsockname(sock, reinterpret_cast<sockaddr*>(&a), &len);
  if (r != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

// One client socket as httplib reads and writes it. Request heads come from receive_head(),
// which is the only place bytes of a head are received; httplib then reads the prepared head
// from memory (and anything after it, which no GET or HEAD has, from the socket).
class HeadFirstStream final : public httplib::Stream {
 public:
  enum class Head { kReady, kGone, kTooLarge };

  HeadFirstStream(int sock, milliseconds read_timeout, milliseconds write_timeout,
                  std::function<bool()> stopping)
      : sock_(sock),
        read_timeout_(read_timeout),
        write_timeout_(write_timeout),
        stopping_(std::move(stopping)) {}

  // Between requests: true once bytes of a next request are there (or already received), false
  // after IDLE without any, or if the server stops.
  bool wait_for_request(milliseconds idle) {
    if (pos_ < in_.size()) return true;
    return wait_readable(Clock::now() + idle);
  }

  // Receives the next head whole: "\r\n\r\n" within LIMITS.max_bytes and within HEAD_TIMEOUT
  // (and each wait for bytes within the read timeout). kGone: the client closed, timed out or
  // the server stops.
  Head receive_head(const HeadLimits& limits, milliseconds head_timeout) {
    in_.erase(0, pos_);
    pos_ = 0;
    const auto deadline = Clock::now() + head_timeout;
    size_t searched = 0, end = std::string::npos;
    while ((end = in_.find("\r\n\r\n", searched)) == std::string::npos) {
      if (in_.size() >= limits.max_bytes) return Head::kTooLarge;
      searched = in_.size() < 3 ? 0 : in_.size() - 3;
      if (!wait_readable(std::min(deadline, Clock::now() + read_timeout_))) return Head::kGone;
      char buf[4096];
      ssize_t n = ::recv(sock_, buf, std::min(sizeof buf, limits.max_bytes + 4 - in_.size()), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return Head::kGone;
      in_.append(buf, static_cast<size_t>(n));
    }
    auto prepared = prepare_request_head(std::string_view(in_).substr(0, end + 4), limits);
    if (!prepared) return Head::kTooLarge;
    in_.replace(0, end + 4, *prepared);
    return Head::kReady;
  }

  // A response of hearth's own, for a head httplib never saw.
  void send_raw(std::string_view text) { write(text.data(), text.size()); }

  bool is_readable() const override {
    return pos_ < in_.size() || (poll_for(sock_, POLLIN, read_timeout_) & POLLIN) != 0;
  }
  bool is_writable() const override {
    short r = poll_for(sock_, POLLOUT, write_timeout_);
    return (r & POLLOUT) != 0 && (r & (POLLERR | POLLHUP)) == 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ < in_.size()) {
      size_t n = std::min(size, in_.size() - pos_);
      std::memcpy(ptr, in_.data() + pos_, n);
      pos_ += n;
      return static_cast<ssize_t>(n);
    }
    if (!is_readable()) return -1;
    ssize_t n = 0;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n = 0;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // Until DEADLINE, in slices; false on timeout, or if the server stops.
  bool wait_readable(Clock::time_point deadline) {
    for (;;) {
      if (stopping_()) return false;
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      if (poll_for(sock_, POLLIN, std::min(left, kSlice)) != 0) return true;
    }
  }

  const int sock_;
  const milliseconds read_timeout_, write_timeout_;
  const std::function<bool()> stopping_;
  std::string in_;  // received; bytes [pos_, size) not yet read by httplib
  size_t pos_ = 0;
};

constexpr std::string_view kTooLargeResponse =
    "HTTP/1.1 431 Request Header Fields Too Large\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Connection: close\r\n"
    "Content-Length: 28\r\n"
    "\r\n"
    "the request head is too big\n";

}  // namespace

bool BoundedServer::widen_backlog() {
  // listen() again on a listening socket only changes its backlog (Linux).
  return ::listen(svr_sock_, SOMAXCONN) == 0;
}

bool BoundedServer::process_and_close_socket(socket_t sock) {
  using std::chrono::microseconds;
  using std::chrono::seconds;
  auto ms = [](time_t s, time_t us) {
    return std::chrono::duration_cast<milliseconds>(seconds(s) + microseconds(us));
  };
  HeadFirstStream strm(sock, ms(read_timeout_sec_, read_timeout_usec_),
                       ms(write_timeout_sec_, write_timeout_usec_), [this] { return stopping(); });
  bool ok = false;
  for (size_t left = keep_alive_max_count_; left > 0; --left) {
    if (!strm.wait_for_request(seconds(keep_alive_timeout_sec_))) break;
    HeadFirstStream::Head head = strm.receive_head(limits_, seconds(head_timeout_s_));
    if (head == HeadFirstStream::Head::kTooLarge) strm.send_raw(kTooLargeResponse);
    if (head != HeadFirstStream::Head::kReady) break;
    bool closed = false;
    ok = process_request(strm, left == 1, closed, setup_);
    if (!ok || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace hearth::serve
