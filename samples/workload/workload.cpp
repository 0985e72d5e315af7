// hearth-sample-workload: a small "service" whose threads give every hearth picture something to
// show (samples/README.md says what each picture should show).
//
//   hearth-sample-workload [--seconds N] [--ready] [--scale K] [--burn-cores C]
//                          [--mmv-dir DIR] [--mmv-name NAME] [--io-dir DIR]
//
// Threads (names as pthread_setname_np sets them; K = --scale):
//   acceptor        puts "requests" on the http queue in batches, every 2 to 18 ms at random; the
//                   rate follows the load phase (warmup, steady, burst)
//   http-1..4K      take requests off the queue and answer them: a little CPU work through named
//                   C++ functions (sample::http::Router::dispatch → handlers → json/cache/search)
//   db-1..3K        transactions on ONE std::mutex, held while applying the change and while
//                   "flushing the WAL" (a short sleep under the lock): the others block in futex
//   sleeper-1..2K   odd: timed waits on a condition variable; even: nanosleep, then a tiny sweep
//   burner-1..2K    spin in sample::compute (Mandelbrot rows), duty-cycled so that together they
//                   take at most --burn-cores CPUs (default 1)
//   io-wait         appends 16 KiB to a temp file (unlinked at once) and fdatasync()s it, then
//                   sleeps 10 ms: 'D' while the disk syncs (on a disk-backed --io-dir), 'S' between
//   metrics         every 250 ms: the MMV gauges computed over an interval, and the phase string
//   (main thread)   keeps the program's name and waits in poll() for a signal or stdin's end
//
// MMV file (libpcp_mmv, written in place): DIR/NAME, where DIR is --mmv-dir or $PCP_TMP_DIR/mmv
// (/var/lib/pcp/tmp/mmv on Debian) and NAME is --mmv-name or hearth-sample-PID. Counters are
// updated by the threads that count (atomic adds on the mapped values); removed on exit.
//
// Protocol: with --ready, prints "ready PID" on stdout once every thread runs under its name and
// the MMV file is published. Ends after --seconds N (N > 0), or with N = 0 (the default) when
// stdin reaches end-of-file; always on SIGINT or SIGTERM. Exit status 0 after a clean shutdown,
// 1 when the MMV file or the I/O file cannot be created, 2 on bad usage.

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>

#include "samples/workload/app_code.h"
#include "samples/workload/metrics.h"
#include "samples/workload/runtime.h"

namespace sample {

// ---------------------------------------------------------------------------------------------
// http: an acceptor, a queue, and workers that answer requests through a few layers of code.

namespace http {

enum class Route { kOrders, kUsers, kSearch };

struct Request {
  uint64_t id;
  Route route;
  uint32_t size;
};

struct Response {
  int status = 200;
  std::string body;
};

class RequestQueue {
 public:
  explicit RequestQueue(Metrics& metrics) : metrics_(metrics) {}
  void push(const std::vector<Request>& batch) {
    {
      std::lock_guard lock(mutex_);
      q_.insert(q_.end(), batch.begin(), batch.end());
      metrics_.queue_depth(static_cast<int64_t>(q_.size()));
    }
    cv_.notify_all();
  }
  // false when the queue is closed.
  bool pop(Request* r) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return closed_ || !q_.empty(); });
    if (q_.empty()) return false;
    *r = q_.front();
    q_.pop_front();
    metrics_.queue_depth(static_cast<int64_t>(q_.size()));
    return true;
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  Metrics& metrics_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Request> q_;
  bool closed_ = false;
};

class Handlers {
 public:
  SAMPLE_FRAME Response orders(const Request& req) {
    std::vector<shop::Order> list;
    for (uint32_t i = 0; i < 40 + req.size % 16; ++i) {
      list.push_back({req.id * 31 + i, static_cast<uint32_t>(req.id % 977), i % 5 + 1,
                      static_cast<double>((req.id + i) % 10000) / 7.0,
                      i % 3 ? "shipped" : "pending"});
    }
    return {200, json::Encoder{}.encode(list)};
  }

  SAMPLE_FRAME Response users(const Request& req) {
    Response r;
    for (uint32_t i = 0; i < 48; ++i) {
      std::string key = "user:" + std::to_string((req.id * 7 + i * 13) % 2000);
      const shop::User& u = users_.get(key, [](const std::string& k) {
        return shop::User{k.substr(5), k.substr(5) + "@example.com", 0};
      });
      r.body += u.email;
      r.body += '\n';
    }
    return r;
  }

  SAMPLE_FRAME Response search(const Request& req) {
    double best = index_.query<search::Bm25>(req.id, 3 + static_cast<int>(req.size % 3));
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, best);
    return {200, std::string(buf, r.ptr)};
  }

 private:
  cache::LruCache<std::string, shop::User> users_;
  search::Index index_;
};

class Router {
 public:
  SAMPLE_FRAME Response dispatch(const Request& req) {
    switch (req.route) {
      case Route::kOrders:
        return handlers_.orders(req);
      case Route::kUsers:
        return handlers_.users(req);
      case Route::kSearch:
        return handlers_.search(req);
    }
    return {404, {}};
  }

 private:
  Handlers handlers_;
};

class Server {
 public:
  Server(RequestQueue& queue, Metrics& metrics) : queue_(queue), metrics_(metrics) {}

  SAMPLE_FRAME void run() {
    Request req;
    while (queue_.pop(&req)) {
      Response resp = handle(req);
      keep(finish(resp));
      metrics_.served(kHttp);
    }
  }

 private:
  SAMPLE_FRAME Response handle(const Request& req) { return router_.dispatch(req); }
  // A checksum of the response, as a stand-in for writing it to a socket.
  SAMPLE_FRAME uint64_t finish(const Response& resp) {
    uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(resp.status);
    for (char c : resp.body) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }

  RequestQueue& queue_;
  Metrics& metrics_;
  Router router_;
};

// Puts batches of requests on the queue at random intervals (2 to 18 ms: periodic work would
// alias with a sampler's period); the rate follows the phase.
SAMPLE_FRAME void accept_loop(RequestQueue& queue, int scale) {
  uint64_t next_id = 1;
  double owed = 0;
  Jitter jitter(2ms, 18ms);
  auto last = Clock::now();
  std::vector<Request> batch;
  while (!stopping()) {
    Phase p = g_phase.load(std::memory_order_relaxed);
    double per_second = (p == Phase::kWarmup ? 300 : p == Phase::kSteady ? 1000 : 3000) * scale;
    auto now = Clock::now();
    owed += per_second * std::chrono::duration<double>(now - last).count();
    last = now;
    batch.clear();
    for (; owed >= 1; owed -= 1, ++next_id) {
      batch.push_back({next_id, static_cast<Route>(next_id % 3),
                       static_cast<uint32_t>((next_id * 2654435761u) % 4096)});
    }
    if (!batch.empty()) queue.push(batch);
    std::this_thread::sleep_for(jitter.next());
  }
}

}  // namespace http

// ---------------------------------------------------------------------------------------------
// db: transactions on one shared table behind one std::mutex (the hot lock).

namespace db {

struct Row {
  uint64_t key;
  uint64_t balance;
  uint64_t version;
};

struct Txn {
  uint64_t id;
  uint64_t keys[24];
  int64_t delta;
};

class Table {
 public:
  Table() {
    for (uint64_t k = 0; k < 4096; ++k) rows_[k] = {k, 1000, 0};
  }
  SAMPLE_FRAME uint64_t apply(const Txn& txn) {
    uint64_t sum = 0;
    for (uint64_t key : txn.keys) {
      Row& row = rows_[key % 4096];
      row.balance += static_cast<uint64_t>(txn.delta);
      ++row.version;
      sum += checksum(row);
    }
    return sum;
  }

 private:
  SAMPLE_FRAME static uint64_t checksum(const Row& row) {
    uint64_t h = row.key * 0x9E3779B97F4A7C15ull ^ row.balance;
    for (int i = 0; i < 40; ++i) h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull + row.version;
    return h;
  }
  std::map<uint64_t, Row> rows_;
};

// The write-ahead log, "flushed" while the table lock is held: the classic way a lock becomes
// hot. The flush is a short sleep (a device wait), so the contention costs little CPU.
class Wal {
 public:
  SAMPLE_FRAME void append(const Txn& txn) {
    for (uint64_t key : txn.keys) buffer_.push_back(key ^ txn.id);
    if (buffer_.size() > 4096) buffer_.clear();
  }
  SAMPLE_FRAME void flush() {
    timespec ts{0, 400'000};
    nanosleep(&ts, nullptr);
  }

 private:
  std::vector<uint64_t> buffer_;
};

std::mutex g_table_lock;  // THE hot lock
Table g_table;
Wal g_wal;

class Session {
 public:
  Session(int id, Metrics& metrics) : id_(id), metrics_(metrics) {}

  SAMPLE_FRAME void run() {
    uint64_t n = 0;
    while (!stopping()) {
      Txn txn = prepare(static_cast<uint64_t>(id_) << 40 | n++);
      commit(txn);
      metrics_.served(kDb);
      await_client();
    }
  }

 private:
  SAMPLE_FRAME Txn prepare(uint64_t id) {
    Txn txn{id, {}, static_cast<int64_t>(id % 17) - 8};
    uint64_t x = id * 0x9E3779B97F4A7C15ull + 7;
    for (uint64_t& k : txn.keys) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      k = x;
    }
    return txn;
  }

  SAMPLE_FRAME void commit(const Txn& txn) {
    uint64_t t0 = now_ns();
    metrics_.lock_waiting(+1);
    std::unique_lock lock(g_table_lock);  // the others wait here, in futex
    metrics_.lock_waiting(-1);
    metrics_.lock_acquired(now_ns() - t0);
    keep(g_table.apply(txn));
    g_wal.append(txn);
    g_wal.flush();
  }

  // The client's think time between transactions.
  SAMPLE_FRAME void await_client() {
    timespec ts{0, 300'000};
    nanosleep(&ts, nullptr);
  }

  int id_;
  Metrics& metrics_;
};

}  // namespace db

// ---------------------------------------------------------------------------------------------
// sleepers: threads that are almost always off-CPU, in two kinds of timed wait.

namespace housekeeping {

// Waits for a "configuration change" that never comes (only shutdown notifies), 200 ms at a time.
SAMPLE_FRAME void watch_config(Metrics& metrics) {
  std::unique_lock lock(g_stop_mutex);
  while (!stopping()) {
    g_stop_cv.wait_for(lock, 200ms);
    metrics.served(kSleeper);
  }
}

SAMPLE_FRAME uint64_t sweep(uint64_t round) {
  uint64_t h = round;
  for (int i = 0; i < 1000; ++i) h = h * 6364136223846793005ull + 1442695040888963407ull;
  return h;
}

// Sleeps 250 ms (nanosleep), sweeps, again.
SAMPLE_FRAME void sweeper(Metrics& metrics) {
  for (uint64_t round = 0; !stopping(); ++round) {
    std::this_thread::sleep_for(250ms);
    keep(sweep(round));
    metrics.served(kSleeper);
  }
}

}  // namespace housekeeping

// ---------------------------------------------------------------------------------------------
// burners: pure CPU, duty-cycled.

namespace compute {

class Mandelbrot {
 public:
  SAMPLE_FRAME uint64_t render_row(int y) {
    uint64_t inside = 0;
    for (int x = 0; x < 256; ++x) inside += escape(-2.0 + 2.5 * x / 256, -1.25 + 2.5 * y / 256);
    return inside;
  }

 private:
  SAMPLE_FRAME static int escape(double cr, double ci) {
    double zr = 0, zi = 0;
    int i = 0;
    for (; i < 64 && zr * zr + zi * zi < 4; ++i) {
      double t = zr * zr - zi * zi + cr;
      zi = 2 * zr * zi + ci;
      zr = t;
    }
    return i == 64;
  }
};

// Spins for DUTY of every period, sleeps the rest; periods of 10 to 30 ms at random, so that a
// sampler's period does not lock onto them.
SAMPLE_FRAME void burn(double duty, Metrics& metrics) {
  Mandelbrot m;
  Jitter jitter(10ms, 30ms);
  int y = 0;
  auto start = Clock::now();
  while (!stopping()) {
    auto period = jitter.next();
    auto busy = std::chrono::duration_cast<Clock::duration>(period * std::clamp(duty, 0.0, 1.0));
    while (Clock::now() - start < busy) {
      keep(m.render_row(y));
      y = (y + 1) % 256;
      metrics.served(kBurner);
    }
    start += period;
    std::this_thread::sleep_until(start);
  }
}

}  // namespace compute

// ---------------------------------------------------------------------------------------------
// io-wait: appends to a journal and syncs it.

namespace storage {

class Journal {
 public:
  explicit Journal(int fd) : fd_(fd), block_(16 * 1024, 'j') {}
  ~Journal() { ::close(fd_); }

  SAMPLE_FRAME void run(Metrics& metrics) {
    while (!stopping()) {
      if (!append()) return;
      auto t0 = Clock::now();
      sync();
      metrics.sync_took(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      metrics.bytes_written(block_.size());
      metrics.served(kIo);
      std::this_thread::sleep_for(10ms);
    }
  }

 private:
  // Rewrites a 4 MiB window of the file, so it never grows past it.
  SAMPLE_FRAME bool append() {
    block_[0] = static_cast<char>(offset_ >> 17);
    ssize_t n = ::pwrite(fd_, block_.data(), block_.size(), offset_);
    if (n < 0) {
      std::fprintf(stderr, "hearth-sample-workload: io-wait: write: %s\n", std::strerror(errno));
      return false;
    }
    offset_ = (offset_ + block_.size()) % (4u << 20);
    return true;
  }
  SAMPLE_FRAME void sync() { ::fdatasync(fd_); }

  int fd_;
  std::string block_;
  off_t offset_ = 0;
};

}  // namespace storage

// ---------------------------------------------------------------------------------------------
// Threads: each starts in thread_main (a plain pthread, so stacks start start_thread →
// sample::thread_main → sample::POOL_main, without std::thread's or std::function's frames).

struct Context {
  Metrics& metrics;
  http::RequestQueue& queue;
  storage::Journal& journal;
  Clock::time_point start;
  int scale;
  double burner_duty;  // of one CPU, per burner
};

struct ThreadSpec {
  std::string name;
  void (*body)(Context&, int index);
  int index;  // 1-based, within its pool
  Context* ctx;
  std::latch* named;
  pthread_t thread;
};

SAMPLE_FRAME void* thread_main(void* arg) {
  auto* spec = static_cast<ThreadSpec*>(arg);
  pthread_setname_np(pthread_self(), spec->name.c_str());
  spec->named->count_down();
  spec->body(*spec->ctx, spec->index);
  return nullptr;
}

// Every 250 ms: the phase, and the gauges computed over the interval.
SAMPLE_FRAME void metrics_main(Context& c, int) {
  std::unique_lock lock(g_stop_mutex);
  while (!stopping()) {
    Phase p = phase_at(Clock::now() - c.start);
    g_phase.store(p, std::memory_order_relaxed);
    c.metrics.publish(p);
    g_stop_cv.wait_for(lock, 250ms);
  }
}

SAMPLE_FRAME void acceptor_main(Context& c, int) {
  http::accept_loop(c.queue, c.scale);
}

SAMPLE_FRAME void http_main(Context& c, int) {
  http::Server(c.queue, c.metrics).run();
}

SAMPLE_FRAME void db_main(Context& c, int index) {
  db::Session(index, c.metrics).run();
}

SAMPLE_FRAME void sleeper_main(Context& c, int index) {
  if (index % 2) {
    housekeeping::watch_config(c.metrics);
  } else {
    housekeeping::sweeper(c.metrics);
  }
}

SAMPLE_FRAME void burner_main(Context& c, int) {
  compute::burn(c.burner_duty, c.metrics);
}

SAMPLE_FRAME void io_main(Context& c, int) {
  c.journal.run(c.metrics);
}

// ---------------------------------------------------------------------------------------------

struct Options {
  double seconds = 0;
  bool ready = false;
  int scale = 1;
  double burn_cores = 1.0;
  std::string mmv_dir;
  std::string mmv_name;
  std::string io_dir;
};

std::string default_mmv_dir() {
  // libpcp's own answer: $PCP_TMP_DIR, else /etc/pcp.conf's.
  const char* tmp = pmGetOptionalConfig("PCP_TMP_DIR");
  return std::string(tmp && *tmp ? tmp : "/var/lib/pcp/tmp") + "/mmv";
}

std::string default_io_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/var/tmp";  // /var/tmp: usually on disk, where /tmp may be tmpfs
}

// A temp file in DIR, unlinked at once: nothing is left behind, however the process ends.
int open_io_file(const std::string& dir, std::string* error) {
  std::string path = dir + "/hearth-sample-io-XXXXXX";
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return -1;
  }
  ::unlink(path.c_str());
  return fd;
}

// Waits for a signal, stdin's end (seconds == 0) or the deadline (seconds > 0).
void wait_for_end(const Options& opt, int signal_fd) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opt.seconds));
  bool watch_stdin = opt.seconds <= 0;
  for (;;) {
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    int timeout = -1;
    if (!watch_stdin) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return;
      timeout = static_cast<int>(std::min<int64_t>(left, 1 << 30));
    }
    int r = ::poll(fds, watch_stdin ? 2 : 1, timeout);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return;
    if (fds[0].revents) return;  // SIGINT or SIGTERM
    if (watch_stdin && fds[1].revents) {
      char buf[512];
      ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;  // end of stdin
    }
  }
}

int run(const Options& opt) {
  // Signals go to the signalfd: blocked here, before any thread starts, so in every thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int signal_fd = ::signalfd(-1, &signals, SFD_CLOEXEC);
  ::signal(SIGPIPE, SIG_IGN);

  std::string dir = opt.mmv_dir.empty() ? default_mmv_dir() : opt.mmv_dir;
  std::string name =
      opt.mmv_name.empty() ? "hearth-sample-" + std::to_string(getpid()) : opt.mmv_name;
  std::error_code ec;
  std::string path = std::filesystem::absolute(dir, ec).string() + "/" + name;

  const int k = opt.scale;
  const int http_threads = 4 * k, db_threads = 3 * k, sleepers = 2 * k, burners = 2 * k;
  const int total = http_threads + db_threads + sleepers + burners + 3;  // io, acceptor, metrics

  std::string error;
  auto metrics = Metrics::create(path, total, &error);
  if (!metrics) {
    std::fprintf(stderr, "hearth-sample-workload: %s: %s (another directory: --mmv-dir DIR)\n",
                 path.c_str(), error.c_str());
    return 1;
  }
  int io_fd = open_io_file(opt.io_dir.empty() ? default_io_dir() : opt.io_dir, &error);
  if (io_fd < 0) {
    std::fprintf(stderr, "hearth-sample-workload: io file: %s\n", error.c_str());
    return 1;
  }
  storage::Journal journal(io_fd);
  http::RequestQueue queue(*metrics);

  Context ctx{*metrics, queue, journal, Clock::now(), k, opt.burn_cores / burners};
  std::latch named(total);
  std::vector<std::unique_ptr<ThreadSpec>> specs;
  // Pools' threads are numbered from 1 (http-1); the single threads are not (io-wait).
  auto add = [&](const char* pool, int count, void (*body)(Context&, int)) {
    for (int i = 1; i <= count; ++i) {
      std::string thread_name = std::string(pool) + (count > 1 ? "-" + std::to_string(i) : "");
      specs.push_back(std::make_unique<ThreadSpec>(
          ThreadSpec{std::move(thread_name), body, i, &ctx, &named, pthread_t{}}));
    }
  };
  add("metrics", 1, metrics_main);
  add("acceptor", 1, acceptor_main);
  add("http", http_threads, http_main);  // at least 2 per pool: always numbered
  add("db", db_threads, db_main);
  add("sleeper", sleepers, sleeper_main);
  add("burner", burners, burner_main);
  add("io-wait", 1, io_main);
  size_t started = 0;
  for (; started < specs.size(); ++started) {
    ThreadSpec& spec = *specs[started];
    if (int err = pthread_create(&spec.thread, nullptr, thread_main, &spec); err != 0) {
      std::fprintf(stderr, "hearth-sample-workload: cannot start %s: %s\n", spec.name.c_str(),
                   std::strerror(err));
      break;
    }
  }
  if (started == specs.size()) named.wait();

  if (started == specs.size()) {
    if (opt.ready) {
      std::printf("ready %d\n", static_cast<int>(getpid()));
      std::fflush(stdout);
    }
    wait_for_end(opt, signal_fd);
  }

  request_stop();
  queue.close();
  for (size_t i = 0; i < started; ++i) pthread_join(specs[i]->thread, nullptr);
  metrics.reset();  // removes the MMV file
  ::close(signal_fd);
  return started == specs.size() ? 0 : 1;
}

}  // namespace sample

int main(int argc, char** argv) {
  sample::Options opt;
  CLI::App app{
      "hearth's sample workload: named thread pools, a contended mutex, sleepers, CPU "
      "burners, a thread in I/O wait, and an MMV metrics file"};
  app.add_option("--seconds", opt.seconds, "Run N seconds; 0: until stdin ends (or a signal)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--ready", opt.ready, "Print 'ready PID' once every thread runs");
  app.add_option("--scale", opt.scale, "Threads per pool, as a multiple of the defaults")
      ->check(CLI::Range(1, 64));
  app.add_option("--burn-cores", opt.burn_cores, "CPUs the burner threads take together")
      ->check(CLI::Range(0.0, 64.0));
  app.add_option("--mmv-dir", opt.mmv_dir, "Directory of the MMV file ($PCP_TMP_DIR/mmv)");
  app.add_option("--mmv-name", opt.mmv_name, "Name of the MMV file (hearth-sample-PID)")
      ->check([](const std::string& s) {
        return s.empty() || s.find('/') != std::string::npos ? "a file name, without /" : "";
      });
  app.add_option("--io-dir", opt.io_dir, "Directory of io-wait's temp file ($TMPDIR or /var/tmp)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return sample::run(opt);
}
