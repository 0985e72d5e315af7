// Connections of `hearth serve`: each request head is received whole, within limits, before
// cpp-httplib parses a byte of it.
//
// Why: cpp-httplib 0.11 (Debian 12) reads the request line and each header line into a string
// that grows until the line ends, and checks its 8 KiB line limit only then; it has no limit on
// the number of header lines, and its read timeout is per receive. Measured on the server
// before this file: one 200 MB header line took its RSS to 274 MB, 10 million header lines
// `a:b` to 1.1 GB, and a client sending a byte every few seconds holds a thread for ever. It
// also runs std::regex over the Range field, whose libstdc++ matcher recurses once per
// character: an 8 KiB Range field touched 7 MB of a thread's 8 MB stack.
//
// So BoundedServer receives each head itself (poll + recv into one buffer), refuses one that
// breaks HeadLimits with 431 and a closed connection, or that does not arrive within
// head_timeout_s of the request's start (the connection is closed), and hands httplib the head
// from memory with Range fields renamed kRangeField: httplib's Range code never runs, hearth
// answers Range itself (byte_ranges.h). Responses are written to the socket as httplib does.
#pragma once

#include <httplib.h>

#include <functional>

#include "render/serve/request_head.h"

namespace hearth::serve {

// An httplib::Server whose connections receive request heads as described above. Everything
// else (handlers, timeouts, keep-alive counts, the thread pool) is configured as for any
// httplib::Server; read, write and keep-alive timeouts apply as there.
class BoundedServer : public httplib::Server {
 public:
  BoundedServer(const HeadLimits& limits, int head_timeout_s)
      : limits_(limits), head_timeout_s_(head_timeout_s) {}

  // httplib 0.11 listens with a backlog of 5: a burst of connections (a browser opens six at
  // once, 24 clients at once saw 1-3 s delays) overflows it, the kernel drops the SYNs and
  // clients retry only after 1 s, then 3 s. Call after binding; false if listen() failed.
  bool widen_backlog();

  // Called with every request httplib has parsed, before any handler (may edit it).
  void set_request_setup(std::function<void(httplib::Request&)> setup) {
    setup_ = std::move(setup);
  }

 private:
  // Overrides httplib's (private virtual) connection loop; called on a pool thread per
  // accepted socket, which it owns and closes.
  bool process_and_close_socket(socket_t sock) override;
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }

  const HeadLimits limits_;
  const int head_timeout_s_;
  std::function<void(httplib::Request&)> setup_;
};

}  // namespace hearth::serve
