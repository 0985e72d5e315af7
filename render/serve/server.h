// `hearth serve`: one report directory, or a directory of reports, over HTTP (cpp-httplib).
//
// Read-only and safe by default:
// - GET and HEAD only (405 otherwise); nothing outside the directory is ever opened (see
//   safe_path.h: the request path is checked as text, then opened with RESOLVE_BENEATH);
//   only regular files are served (no FIFOs or devices, which could block or leak).
// - With a token, every request must carry it: `Authorization: Bearer TOKEN`, the cookie the
//   server sets, or `?token=TOKEN` on the first page (which sets the cookie, so the page's own
//   links to pictures work). Compared in constant time.
//   A `?token=` is traded for the cookie with a 303 to the same address without it (access.h);
//   the request log never shows the token.
// - Limits (connection.h): a request head of at most 32 KiB, 100 header lines and 8 KiB per
//   line, received whole within head_timeout_s (else 431, or the connection is closed); no
//   request body accepted; a read timeout per receive; keep-alive bounded in count and time;
//   one thread per connection up to a cap, so a slow client holds its own thread and never
//   blocks another client; connections beyond the cap wait in a queue.
// - Files are streamed, never held whole (file_body.h): a response holds one 64 KiB slice in
//   memory whatever the file or the Range field. Range is answered by hearth (byte_ranges.h):
//   one range 206, up to 4 after merging multipart/byteranges, more or malformed ones ignored
//   (200), 416 for none inside the file.
// - Responses carry a content type by extension (`image/svg+xml`, `text/html; charset=utf-8`,
//   ...), `X-Content-Type-Options: nosniff`, no-referrer, and whole files are gzip-compressed
//   when the client accepts it and the type is text (not brotli: see server.cpp).
// - Hidden names (`.git/`, `.env`) are never served (404), nor listed.
// - A directory with an index.html serves it; one without lists the reports below it (sub-
//   directories with an index.html, newest first) and its files.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth::serve {

struct ServeOptions {
  std::string dir;                 // what to serve
  std::string bind = "127.0.0.1";  // address to listen on
  int port = 8080;                 // 0: any free port (see ReportServer::port())
  std::string token;               // empty: no token needed
  int read_timeout_s = 5;          // per receive; also the keep-alive idle limit
  int head_timeout_s = 10;         // a request's line and headers, whole, from its first byte
  int max_connection_threads = 128;
  // One line per request ("GET /flame.svg 200 12345"); empty: no log.
  std::function<void(const std::string&)> log;
};

// "image/svg+xml" for "x.svg", ...; "application/octet-stream" when unknown.
std::string_view content_type_for(std::string_view path);

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback(std::string_view address);

class ReportServer {
 public:
  // Checks the directory and binds the socket (errors: "DIR: not a directory", "cannot listen
  // on ADDR:PORT: Address already in use", ...). Does not serve yet.
  static Result<std::unique_ptr<ReportServer>> create(const ServeOptions& options);
  ~ReportServer();

  int port() const;  // the bound port
  // Serves until stop(); returns false if the listening loop failed.
  bool run();
  // From any thread (or a signal-watching thread): ends run().
  void stop();

 private:
  struct Impl;
  explicit ReportServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::serve
