#include "render/serve/server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "render/serve/connection.h"
#include "render/serve/safe_path.h"
#include "render/svg/xml.h"

namespace hearth::serve {
namespace {

constexpr size_t kMaxFileBytes = size_t{1} << 30;  // 1 GiB: a report file is far smaller
constexpr const char* kCookie = "hearth_token";

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

// Percent-encodes everything but unreserved characters and '/' (for hrefs and Location).
std::string encode_path(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

bool same_secret(std::string_view a, std::string_view b) {
  // Constant time in the contents (the length of the token is not a secret worth hiding).
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string cookie_value(const std::string& header, std::string_view name) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string_view item(header.data() + pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.size() > name.size() && item.starts_with(name) && item[name.size()] == '=')
      return std::string(item.substr(name.size() + 1));
    pos = end + 1;
  }
  return {};
}

void plain(httplib::Response& res, int status, const std::string& text) {
  res.status = status;
  res.set_content(text + "\n", "text/plain; charset=utf-8");
}

std::string utc_time(time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

struct Entry {
  std::string name;
  bool is_report = false;
  bool is_dir = false;
  time_t mtime = 0;
  off_t size = 0;
};

// Reports (subdirectories with an index.html) newest first, then other directories and
// files by name. Nothing that is not a directory or regular file is listed.
std::vector<Entry> list_directory(int dir_fd) {
  std::vector<Entry> out;
  int fd = ::dup(dir_fd);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return out;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || name.starts_with(".")) continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    Entry en;
    en.name = name;
    en.mtime = st.st_mtime;
    en.size = st.st_size;
    if (S_ISDIR(st.st_mode)) {
      en.is_dir = true;
      struct stat ist {};
      std::string index = name + "/index.html";
      if (::fstatat(dir_fd, index.c_str(), &ist, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISREG(ist.st_mode)) {
        en.is_report = true;
        struct stat rst {};
        std::string meta = name + "/report.json";
        en.mtime = ::fstatat(dir_fd, meta.c_str(), &rst, AT_SYMLINK_NOFOLLOW) == 0 ? rst.st_mtime
                                                                                   : ist.st_mtime;
      }
    } else if (!S_ISREG(st.st_mode)) {
      continue;
    }
    out.push_back(std::move(en));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    if (a.is_report != b.is_report) return a.is_report;
    if (a.is_report && a.mtime != b.mtime) return a.mtime > b.mtime;
    if (a.is_dir != b.is_dir) return a.is_dir;
    return a.name < b.name;
  });
  return out;
}

std::string index_page(const std::string& url_path, const std::vector<Entry>& entries) {
  std::string title = "hearth reports: " + url_path;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<meta name=\"color-scheme\" content=\"light dark\"><title>";
  svg::append_escaped(&h, title);
  h += "</title><style>body{font-family:system-ui,\"DejaVu Sans\",sans-serif;margin:2em}"
       "td{padding:.2em 1em .2em 0}a{text-decoration:none}</style></head><body><h1>";
  svg::append_escaped(&h, title);
  h += "</h1>\n";
  bool any_report = false;
  for (const Entry& e : entries) any_report |= e.is_report;
  if (any_report) {
    h += "<h2>Reports, newest first</h2>\n<table>\n";
    for (const Entry& e : entries) {
      if (!e.is_report) continue;
      h += "<tr><td><a href=\"";
      svg::append_escaped(&h, encode_path(e.name));
      h += "/\">";
      svg::append_escaped(&h, e.name);
      h += "</a></td><td>" + utc_time(e.mtime) + "</td></tr>\n";
    }
    h += "</table>\n";
  }
  h += "<h2>Files</h2>\n<table>\n";
  if (url_path != "/") h += "<tr><td><a href=\"../\">../</a></td></tr>\n";
  for (const Entry& e : entries) {
    if (e.is_report) continue;
    h += "<tr><td><a href=\"";
    svg::append_escaped(&h, encode_path(e.name) + (e.is_dir ? "/" : ""));
    h += "\">";
    svg::append_escaped(&h, e.name + (e.is_dir ? "/" : ""));
    h += "</a></td><td>" + (e.is_dir ? std::string() : std::to_string(e.size) + " bytes") +
         "</td></tr>\n";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

Result<std::string> read_all(int fd, off_t size) {
  if (size < 0 || static_cast<uint64_t>(size) > kMaxFileBytes) return fail("file too large");
  std::string data(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_errno("read", errno);
    if (n == 0) break;  // shrank meanwhile: serve what is there
    got += static_cast<size_t>(n);
  }
  data.resize(got);
  return data;
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

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

  const ServeOptions options;
  int root_fd = -1;
  int port = 0;
  BoundedServer server;

  ~Impl() {
    if (root_fd >= 0) ::close(root_fd);
  }

  bool authorized(const httplib::Request& req, httplib::Response& res) const {
    if (options.token.empty()) return true;
    std::string auth = req.get_header_value("Authorization");
    if (auth.starts_with("Bearer ") && same_secret(auth.substr(7), options.token)) return true;
    if (same_secret(cookie_value(req.get_header_value("Cookie"), kCookie), options.token))
      return true;
    if (req.has_param("token") && same_secret(req.get_param_value("token"), options.token)) {
      res.set_header("Set-Cookie", std::string(kCookie) + "=" + options.token +
                                       "; Path=/; HttpOnly; SameSite=Strict");
      return true;
    }
    return false;
  }

  void handle(const httplib::Request& req, httplib::Response& res) const {
    auto rel = normalize_request_path(req.path);
    if (!rel) {
      if (rel.error().errnum == ENOENT) return plain(res, 404, "not found");  // a hidden name
      return plain(res, 400, "bad path: " + rel.error().message);
    }
    auto opened = open_beneath(root_fd, *rel);
    if (!opened) {
      int e = opened.error().errnum;
      // A path that leaves the directory (EXDEV, ELOOP) is answered like a missing file: the
      // answer does not tell whether a name exists out there.
      if (e == ENOENT || e == ENOTDIR || e == EXDEV || e == ELOOP)
        return plain(res, 404, "not found");
      if (e == EACCES || e == EPERM) return plain(res, 403, "forbidden: not readable");
      return plain(res, 500, "cannot open: " + opened.error().message);
    }
    Fd fd(*opened);
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) return plain(res, 500, "cannot stat");
    std::string served = *rel;
    if (S_ISDIR(st.st_mode)) {
      if (!req.path.ends_with("/")) {
        res.status = 301;
        res.set_header("Location", encode_path(req.path + "/"));
        return;
      }
      std::string index = rel->empty() ? "index.html" : *rel + "/index.html";
      auto idx = open_beneath(root_fd, index);
      if (!idx) {
        res.status = 200;
        res.set_content(index_page(req.path, list_directory(fd.fd)), "text/html; charset=utf-8");
        return;
      }
      Fd ifd(*idx);
      if (::fstat(ifd.fd, &st) != 0 || !S_ISREG(st.st_mode))
        return plain(res, 403, "forbidden: not a regular file");
      auto data = read_all(ifd.fd, st.st_size);
      if (!data) return plain(res, 500, "cannot read: " + data.error().message);
      res.status = 200;
      res.set_content(std::move(*data), "text/html; charset=utf-8");
      return;
    }
    if (!S_ISREG(st.st_mode)) return plain(res, 403, "forbidden: not a regular file");
    auto data = read_all(fd.fd, st.st_size);
    if (!data) return plain(res, 500, "cannot read: " + data.error().message);
    res.status = 200;
    res.set_content(std::move(*data), std::string(content_type_for(served)).c_str());
  }
};

ReportServer::ReportServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ReportServer::~ReportServer() {
  stop();
}

Result<std::unique_ptr<ReportServer>> ReportServer::create(const ServeOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  impl->root_fd = ::open(options.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (impl->root_fd < 0) {
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
  s.set_pre_routing_handler([self](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      plain(res, 405, "method not allowed: this server is read-only (GET, HEAD)");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!self->authorized(req, res)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"hearth\"");
      plain(res, 401, "a token is required: open the URL `hearth serve` printed");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get(".*",
        [self](const httplib::Request& req, httplib::Response& res) { self->handle(req, res); });
  if (options.log) {
    auto log = options.log;
    s.set_logger([log](const httplib::Request& req, const httplib::Response& res) {
      log(req.method + " " + req.path + " " + std::to_string(res.status) + " " +
          std::to_string(res.body.size()));
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
