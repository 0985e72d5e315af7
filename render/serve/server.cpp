#include "render/serve/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common/unique_fd.h"
#include "render/serve/access.h"
#include "render/serve/connection.h"
#include "render/serve/file_body.h"
#include "render/serve/listing.h"
#include "render/serve/safe_path.h"

namespace hearth::serve {
namespace {

// One thread per connection up to a cap (a slow client holds only its own thread); tasks
// beyond the cap queue until a thread is free. shutdown() waits for every task: each one owns
// and closes a client socket.
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(int max_threads) : max_(std::max(1, max_threads)) {}
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    if (running_ < max_) {
      ++running_;
      std::thread([this, f = std::move(fn)]() mutable { work(std::move(f)); }).detach();
    } else {
      queue_.push_back(std::move(fn));
    }
  }

  void shutdown() override {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [this] { return running_ == 0 && queue_.empty(); });
  }

 private:
  void work(std::function<void()> fn) {
    for (;;) {
      fn();
      std::lock_guard lock(mu_);
      if (queue_.empty()) {
        --running_;
        idle_.notify_all();
        return;
      }
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
  }

  const int max_;
  std::mutex mu_;
  std::condition_variable idle_;
  int running_ = 0;
  std::deque<std::function<void()>> queue_;
};

void plain(httplib::Response& res, int status, const std::string& text) {
  res.status = status;
  res.set_content(text + "\n", "text/plain; charset=utf-8");
}

// Every request, after httplib has parsed it and before any handler.
void setup_request(httplib::Request& req) {
  // httplib fills req.ranges from a `Range` field and then cuts (for several ranges: repeats)
  // whatever body a handler sets. connection.cpp renames that field, so this stays empty; it
  // is cleared all the same, as hearth answers Range itself (file_body.h).
  req.ranges.clear();
  // No brotli: httplib 0.11 compresses with the encoder's defaults (quality 11, 4 MiB window).
  // A 3.3 MB SVG cost 5.6 s of CPU and 57 MB of memory per request (gzip: 0.15 s), and every
  // browser asks for br. httplib is offered gzip only.
  bool gzip = req.get_header_value("Accept-Encoding").find("gzip") != std::string::npos;
  req.headers.erase("Accept-Encoding");
  if (gzip) req.headers.emplace("Accept-Encoding", "gzip");
}

}  // namespace

std::string_view content_type_for(std::string_view path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
    return "application/octet-stream";
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "html" || ext == "htm") return "text/html; charset=utf-8";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "pdf") return "application/pdf";
  if (ext == "json") return "application/json";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "tsv") return "text/tab-separated-values; charset=utf-8";
  if (ext == "txt" || ext == "folded" || ext == "md" || ext == "log")
    return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

bool is_loopback(std::string_view address) {
  if (address == "localhost" || address == "::1" || address == "[::1]") return true;
  in_addr a4{};
  std::string s(address);
  if (::inet_pton(AF_INET, s.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  return false;
}

struct ReportServer::Impl {
  explicit Impl(const ServeOptions& o) : options(o), server(HeadLimits{}, o.head_timeout_s) {}

  enum class Access { kAllowed, kDenied, kRedirected };

  const ServeOptions options;
  UniqueFd root;
  int port = 0;
  BoundedServer server;

  Access authorize(const httplib::Request& req, httplib::Response& res) const {
    if (options.token.empty()) return Access::kAllowed;
    if (req.has_param("token") && same_secret(req.get_param_value("token"), options.token)) {
      // Trade the token in the address for a cookie, and send the browser to the same address
      // without it: it leaves the address bar and the history (303: the next request is a GET).
      // SameSite=Lax, not Strict: a browser withholds a Strict cookie from the redirected
      // request when the link was followed from another site (a chat, a ticket), and would
      // then get a 401. Lax still keeps it off other sites' requests for pictures or scripts,
      // and this server takes no request that changes anything.
      res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + options.token +
                                       "; Path=/; HttpOnly; SameSite=Lax");
      auto rel = normalize_request_path(req.path);
      res.status = 303;
      res.set_header("Location", location_without_param(rel ? *rel : "", req.path.ends_with("/"),
                                                        req.params, "token"));
      return Access::kRedirected;
    }
    std::string auth = req.get_header_value("Authorization");
    if (auth.starts_with("Bearer ") && same_secret(auth.substr(7), options.token))
      return Access::kAllowed;
    if (same_secret(cookie_value(req.get_header_value("Cookie"), kTokenCookie), options.token))
      return Access::kAllowed;
    return Access::kDenied;
  }

  void handle(const httplib::Request& req, httplib::Response& res) const {
    auto rel = normalize_request_path(req.path);
    if (!rel) {
      if (rel.error().errnum == ENOENT) return plain(res, 404, "not found");  // a hidden name
      return plain(res, 400, "bad path: " + rel.error().message);
    }
    auto opened = open_beneath(root.get(), *rel);
    if (!opened) {
      int e = opened.error().errnum;
      // A path that leaves the directory (EXDEV, ELOOP) is answered like a missing file: the
      // answer does not tell whether a name exists out there.
      if (e == ENOENT || e == ENOTDIR || e == EXDEV || e == ELOOP)
        return plain(res, 404, "not found");
      if (e == EACCES || e == EPERM) return plain(res, 403, "forbidden: not readable");
      return plain(res, 500, "cannot open: " + opened.error().message);
    }
    UniqueFd fd(*opened);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return plain(res, 500, "cannot stat");
    if (S_ISDIR(st.st_mode)) return handle_directory(req, res, *rel, fd);
    if (!S_ISREG(st.st_mode)) return plain(res, 403, "forbidden: not a regular file");
    respond_with_file(req, res, std::move(fd), static_cast<uint64_t>(st.st_size),
                      std::string(content_type_for(*rel)));
  }

  void handle_directory(const httplib::Request& req, httplib::Response& res, const std::string& rel,
                        const UniqueFd& dir) const {
    if (!req.path.ends_with("/")) {
      // Built from the normalized path: "//host" stays on this server.
      res.status = 301;
      std::string location = "/";
      if (!rel.empty()) location += encode_path(rel) + "/";
      res.set_header("Location", location);
      return;
    }
    auto idx = open_beneath(root.get(), rel.empty() ? "index.html" : rel + "/index.html");
    if (!idx) {
      res.status = 200;
      res.set_content(index_page(req.path, list_directory(dir.get())), "text/html; charset=utf-8");
      return;
    }
    UniqueFd index(*idx);
    struct stat st {};
    if (::fstat(index.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return plain(res, 403, "forbidden: not a regular file");
    respond_with_file(req, res, std::move(index), static_cast<uint64_t>(st.st_size),
                      "text/html; charset=utf-8");
  }
};

ReportServer::ReportServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ReportServer::~ReportServer() {
  stop();
}

Result<std::unique_ptr<ReportServer>> ReportServer::create(const ServeOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  impl->root = UniqueFd(::open(options.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (impl->root.get() < 0) {
    int e = errno;
    if (e == ENOTDIR) return fail(options.dir + ": not a directory", e);
    return fail_errno("cannot open " + options.dir, e);
  }
  Impl* self = impl.get();
  BoundedServer& s = impl->server;
  int threads = options.max_connection_threads;
  s.new_task_queue = [threads] { return new ConnectionThreads(threads); };
  s.set_read_timeout(options.read_timeout_s, 0);
  s.set_write_timeout(options.read_timeout_s, 0);
  s.set_keep_alive_timeout(options.read_timeout_s);
  s.set_keep_alive_max_count(100);
  s.set_payload_max_length(0);  // GET and HEAD carry no body
  // cpp-httplib's default also sets SO_REUSEPORT, which lets a second server (any process of
  // the same user) bind the same port and take part of the requests: SO_REUSEADDR only.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                         {"Referrer-Policy", "no-referrer"},
                         {"Cache-Control", "no-cache"},
                         {"X-Frame-Options", "SAMEORIGIN"}});
  s.set_request_setup(setup_request);
  // Every request is answered here: no route is registered, so httplib never matches a
  // std::regex against the path (libstdc++'s matcher recurses once per character: an 8 KB
  // path touched 4.7 MB of the connection thread's stack).
  s.set_pre_routing_handler([self](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      plain(res, 405, "method not allowed: this server is read-only (GET, HEAD)");
      return httplib::Server::HandlerResponse::Handled;
    }
    switch (self->authorize(req, res)) {
      case Impl::Access::kDenied:
        res.set_header("WWW-Authenticate", "Bearer realm=\"hearth\"");
        plain(res, 401, "a token is required: open the URL `hearth serve` printed");
        break;
      case Impl::Access::kRedirected:
        break;
      case Impl::Access::kAllowed:
        self->handle(req, res);
        break;
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  if (options.log) {
    auto log = options.log;
    std::string token = options.token;
    s.set_logger([log, token](const httplib::Request& req, const httplib::Response& res) {
      // Streamed bodies are not in res.body: their Content-Length, or "-" when chunked.
      std::string bytes = !res.body.empty() ? std::to_string(res.body.size())
                          : res.has_header("Content-Length")
                              ? res.get_header_value("Content-Length")
                              : "-";
      log(log_line(req.method, req.path, res.status, bytes, token));
    });
  }
  std::string host = options.bind;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (options.port == 0) {
    impl->port = s.bind_to_any_port(host);
    if (impl->port <= 0) {
      int e = errno;
      return fail_errno("cannot listen on " + options.bind + " (any port)", e);
    }
  } else {
    if (!s.bind_to_port(host, options.port)) {
      int e = errno;
      return fail_errno("cannot listen on " + options.bind + ":" + std::to_string(options.port) +
                            " (another server there? try --port)",
                        e ? e : EADDRINUSE);
    }
    impl->port = options.port;
  }
  if (!s.widen_backlog()) {
    int e = errno;
    return fail_errno("cannot listen on " + options.bind, e);
  }
  return std::unique_ptr<ReportServer>(new ReportServer(std::move(impl)));
}

int ReportServer::port() const {
  return impl_->port;
}

bool ReportServer::run() {
  return impl_->server.listen_after_bind();
}

void ReportServer::stop() {
  if (impl_) impl_->server.stop();
}

}  // namespace hearth::serve
