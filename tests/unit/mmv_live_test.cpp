// The MMV reader against a live writer (a thread updating values and strings while we read),
// a dead writer (PROCESS flag), a truncated mapping, and the Watcher over a directory.
#ifdef HEARTH_HAVE_PCP_MMV

// pmapi.h first: mmv_stats.h needs its types.
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "collectors/mmv/mmv_file.h"
#include "collectors/mmv/mmv_watch.h"
#include "collectors/mmv/sigbus_guard.h"
#include "tests/unit/mmv_pcp_support.h"

namespace hearth::mmv {
namespace {

using testing::mmv_path;
using testing::pcp_mmv_dir;

mmv_metric_t live_metrics[] = {
    {"count", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(0, 0, 1, 0, 0, 0), 0, nullptr, nullptr},
    {"text", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
};

TEST(MmvLive, WriterUpdatingWhileReading) {
  pcp_mmv_dir();
  void* m =
      mmv_stats_init("live", 0, static_cast<mmv_stats_flags_t>(0), live_metrics, 2, nullptr, 0);
  ASSERT_NE(m, nullptr);
  pmAtomValue* count = mmv_lookup_value_desc(m, "count", nullptr);
  pmAtomValue* text = mmv_lookup_value_desc(m, "text", nullptr);
  const std::string a(200, 'a'), b = "b";
  mmv_set_string(m, text, a.c_str(), static_cast<int>(a.size()));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    uint64_t n = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      __atomic_store_n(&count->ull, ++n, __ATOMIC_RELAXED);
      const std::string& s = n % 2 ? b : a;
      mmv_set_string(m, text, s.c_str(), static_cast<int>(s.size()));
    }
  });
  Result<MmvFile> f = MmvFile::open(mmv_path("live"));
  ASSERT_TRUE(f) << f.error().message;
  while (__atomic_load_n(&count->ull, __ATOMIC_RELAXED) < 1000) std::this_thread::yield();
  uint64_t last = 0;
  int ok = 0;
  for (int i = 0; i < 3000; ++i) {
    Snapshot s;
    SnapshotStatus st = f->snapshot(&s);
    ASSERT_TRUE(st == SnapshotStatus::kOk || st == SnapshotStatus::kRetry);
    if (st != SnapshotStatus::kOk) continue;
    ++ok;
    ASSERT_EQ(s.samples.size(), 2u);
    uint64_t c = s.samples[0].raw;
    EXPECT_GE(c, last) << "a counter went backwards";
    last = c;
    // A string is one of the writer's, or absent, or a prefix of one: libpcp_mmv clears the
    // field and then copies the new text, and a writer preempted in between shows the same
    // prefix to both copies (no lock in the format). Never a mix of the two strings.
    if (s.samples[1].present) {
      const std::string& t = s.samples[1].text;
      EXPECT_TRUE(a.starts_with(t) || b.starts_with(t)) << "torn string: " << t;
    }
  }
  stop = true;
  writer.join();
  EXPECT_GT(ok, 0);
  EXPECT_GT(last, 0u);
  // The writer stopped: the next snapshot sees its last values whole.
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  EXPECT_EQ(s.samples[0].raw, count->ull);
  ASSERT_TRUE(s.samples[1].present);
  EXPECT_EQ(s.samples[1].text, count->ull % 2 ? b : a);
  mmv_stats_stop("live", m);
}

// A child writes a file with the PROCESS flag and exits: first a zombie, then reaped.
TEST(MmvLive, DeadWriterIsStale) {
  pcp_mmv_dir();
  int ready[2];
  int go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    void* m = mmv_stats_init("dead", 0, MMV_FLAG_PROCESS, live_metrics, 2, nullptr, 0);
    char c = m ? 1 : 0;
    (void)!write(ready[1], &c, 1);
    (void)!read(go[0], &c, 1);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 1);
  Result<MmvFile> f = MmvFile::open(mmv_path("dead"));
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->layout().pid, child);
  EXPECT_FALSE(f->writer_gone());
  ASSERT_EQ(write(go[1], &c, 1), 1);
  // Wait until the child is a zombie (not reaped yet).
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(f->writer_gone()) << "zombie writer";
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(f->writer_gone()) << "reaped writer";
  for (int fd : {ready[0], ready[1], go[0], go[1]}) close(fd);
}

TEST(MmvLive, TruncatedFileIsReplacedNotACrash) {
  pcp_mmv_dir();
  void* m =
      mmv_stats_init("trunc", 0, static_cast<mmv_stats_flags_t>(0), live_metrics, 2, nullptr, 0);
  ASSERT_NE(m, nullptr);
  Result<MmvFile> f = MmvFile::open(mmv_path("trunc"));
  ASSERT_TRUE(f) << f.error().message;
  mmv_stats_stop("trunc", m);
  ASSERT_EQ(truncate(mmv_path("trunc").c_str(), 64), 0);  // same inode, shorter
  Snapshot s;
  EXPECT_EQ(f->snapshot(&s), SnapshotStatus::kReplaced);
}

TEST(MmvLive, SigbusGuardTurnsAFaultIntoFalse) {
  char path[] = "/tmp/hearth-sigbus-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const size_t size = 2 * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
  void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(ftruncate(fd, 0), 0);  // every page of the mapping is now past the end
  volatile uint64_t sink = 0;
  auto touch = [&] { sink = sink + *static_cast<volatile const uint64_t*>(p); };
  EXPECT_FALSE(guard_sigbus(touch));
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
  EXPECT_TRUE(guard_sigbus(touch));
  munmap(p, size);
  close(fd);
  unlink(path);
}

struct Recorder : SeriesSink {
  std::vector<std::string> log;
  void on_series(const Series& s) override {
    log.push_back("series " + std::to_string(s.id) + " " + s.name);
  }
  void on_values(const Series& s, const Snapshot&) override {
    log.push_back("values " + std::to_string(s.id));
  }
  void on_event(uint64_t, const Series* s, const std::string& path, EventKind k,
                std::string_view) override {
    log.push_back(std::string(event_name(k)) + " " + (s ? std::to_string(s->id) : path));
  }
};

TEST(MmvLive, WatcherPicksUpFilesAppearingReplacedDamagedAndGone) {
  std::string dir = pcp_mmv_dir() + "/watched";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  Watcher w({{dir, true}});
  Recorder r;
  w.poll(r);
  EXPECT_TRUE(r.log.empty());
  void* m = mmv_stats_init("watched/one", 0, static_cast<mmv_stats_flags_t>(0), live_metrics, 2,
                           nullptr, 0);
  ASSERT_NE(m, nullptr);
  { std::ofstream(dir + "/junk") << "not an MMV file at all, but long enough for a header"; }
  w.poll(r);
  w.poll(r);  // the damaged file is reported once
  mmv_stats_stop("watched/one", m);
  m = mmv_stats_init("watched/one", 0, static_cast<mmv_stats_flags_t>(0), live_metrics, 2, nullptr,
                     0);
  w.poll(r);
  mmv_stats_stop("watched/one", m);
  unlink((dir + "/one").c_str());
  w.poll(r);
  std::vector<std::string> want = {
      "error " + dir + "/junk", "series 1 one", "values 1", "values 1", "replaced 1",
      "series 2 one",           "values 2",     "gone 2"};
  EXPECT_EQ(r.log, want);
}

}  // namespace
}  // namespace hearth::mmv

#endif  // HEARTH_HAVE_PCP_MMV
