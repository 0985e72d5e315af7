// A file a writer keeps truncating and rewriting: the Watcher reports each time it goes bad and
// comes back once (whatever the reason turns into meanwhile) and counts the polls lost, and
// `hearth mmv`'s stderr (MmvNotices) stays a few lines whatever the rate.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "bin/hearth/mmv_notices.h"
#include "collectors/mmv/mmv_layout.h"
#include "collectors/mmv/mmv_watch.h"
#include "tests/unit/temp_dir.h"

#ifdef HEARTH_HAVE_PCP_MMV
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on
#include "tests/unit/mmv_pcp_support.h"
#endif

namespace hearth::mmv {
namespace {

using cli::MmvNotices;
using testing_support::TempDir;

constexpr uint64_t kSecond = 1'000'000'000;

struct Lines {
  std::vector<std::string> lines;
  MmvNotices notices{[this](const std::string& l) { lines.push_back(l); }};
};

TEST(MmvNotices, FlappingGivesThreeLinesAndTheSummary) {
  Lines out;
  const std::string p = "/x/app";
  for (uint64_t i = 0; i < 1000; ++i) {  // a thousand episodes within a second
    out.notices.on_event(i * 1000000, p, EventKind::kError, p + ": reason " + std::to_string(i));
    out.notices.on_event(i * 1000000 + 500000, p, EventKind::kReadable, p + ": readable again");
  }
  std::map<std::string, Trouble> troubles;
  troubles[p] = Trouble{p + ": reason 999", 1000, 1500, 1, false};
  out.notices.finish(troubles);
  ASSERT_EQ(out.lines.size(), 4u) << ::testing::PrintToString(out.lines);
  EXPECT_EQ(out.lines[0], "/x/app: reason 0");
  EXPECT_EQ(out.lines[1], "/x/app: readable again");
  EXPECT_TRUE(out.lines[2].starts_with("/x/app: reason 1 (bad again")) << out.lines[2];
  EXPECT_EQ(out.lines[3], "/x/app was unreadable 1000 times, 1500 samples lost");
}

TEST(MmvNotices, AfterTheQuietTimeTheNextLineCountsWhatWentUnsaid) {
  Lines out;
  const std::string p = "app";
  uint64_t t = 0;
  for (int i = 0; i < 5; ++i, t += kSecond) {
    out.notices.on_event(t, p, EventKind::kError, p + ": bad");
    out.notices.on_event(t + 1, p, EventKind::kReadable, p + ": back");
  }
  ASSERT_EQ(out.lines.size(), 3u);  // bad, back, flapping; then quiet
  t += MmvNotices::kQuietNs;
  out.notices.on_event(t, p, EventKind::kError, p + ": bad");
  out.notices.on_event(t + kSecond, p, EventKind::kReadable, p + ": back");
  ASSERT_EQ(out.lines.size(), 5u);
  EXPECT_EQ(out.lines[3], "app: bad (bad 3 more times since the last line)");
  EXPECT_EQ(out.lines[4], "app: back");
  // A file that stays bad: one line, and the summary says it still is.
  out.notices.on_event(t, "other", EventKind::kError, "other: too short");
  std::map<std::string, Trouble> troubles;
  troubles["other"] = Trouble{"other: too short", 1, 1, 1, true};
  out.notices.finish(troubles);
  ASSERT_EQ(out.lines.size(), 7u);
  EXPECT_EQ(out.lines[5], "other: too short");
  EXPECT_EQ(out.lines[6],
            "other was unreadable 1 time, 1 sample lost; still unreadable at the end: too short");
}

// Counts the Watcher's events and passes errors and recoveries on to MmvNotices.
struct CountingSink : SeriesSink {
  explicit CountingSink(MmvNotices* n) : notices(n) {}
  void on_series(const Series&) override { ++series; }
  void on_values(const Series&, const Snapshot&) override { ++values; }
  void on_event(uint64_t t, const Series*, const std::string& path, EventKind k,
                std::string_view detail) override {
    if (k == EventKind::kError) ++errors;
    if (k == EventKind::kReadable) ++readable;
    notices->on_event(t, path, k, detail);
  }
  MmvNotices* notices;
  uint64_t series = 0, values = 0, errors = 0, readable = 0;
};

void write_all(const std::string& path, const std::string& bytes, size_t chunk) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    size_t n = std::min(chunk, bytes.size() - at);
    ASSERT_EQ(::write(fd, bytes.data() + at, n), static_cast<ssize_t>(n));
  }
  ::close(fd);
}

#ifdef HEARTH_HAVE_PCP_MMV

mmv_metric_t flap_metrics[] = {
    {"count", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(0, 0, 1, 0, 0, 0), 0, nullptr, nullptr},
    {"text", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
};

// The bytes of a file libpcp_mmv wrote.
std::string pcp_file_bytes(const char* name) {
  testing::pcp_mmv_dir();
  void* m = mmv_stats_init(name, 0, static_cast<mmv_stats_flags_t>(0), flap_metrics, 2, nullptr, 0);
  EXPECT_NE(m, nullptr);
  std::string bytes;
  int fd = ::open(testing::mmv_path(name).c_str(), O_RDONLY | O_CLOEXEC);
  char buf[4096];
  for (ssize_t n; fd >= 0 && (n = ::read(fd, buf, sizeof buf)) > 0;) bytes.append(buf, n);
  if (fd >= 0) ::close(fd);
  mmv_stats_stop(name, m);
  return bytes;
}

// Prefix lengths of BYTES that are damaged files (not merely "still being initialised").
std::vector<size_t> damaged_cuts(const std::string& bytes) {
  std::vector<size_t> cuts;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<Layout> l = parse_layout(std::string_view(bytes).substr(0, n));
    if (!l && l.error().errnum != EAGAIN) cuts.push_back(n);
  }
  return cuts;
}

// Poll by poll: whole, cut (each time at another length: another reason), whole, cut, ...
TEST(MmvFlapping, EachBadSpellIsOneErrorAndOneRecovery) {
  const std::string bytes = pcp_file_bytes("flap-lockstep");
  const std::vector<size_t> cuts = damaged_cuts(bytes);
  ASSERT_GT(cuts.size(), 20u);
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "app";
  std::vector<std::string> lines;
  MmvNotices notices([&](const std::string& l) { lines.push_back(l); });
  CountingSink sink(&notices);
  Watcher w({{path, false}});
  const uint64_t rounds = 300;
  for (uint64_t i = 0; i < rounds; ++i) {
    write_all(path, bytes, bytes.size());
    w.poll(sink);
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(cuts[i % cuts.size()])), 0);
    w.poll(sink);
  }
  notices.finish(w.troubles());
  EXPECT_EQ(sink.errors, rounds);
  EXPECT_EQ(sink.readable, rounds - 1);  // the last spell lasts to the end
  EXPECT_EQ(sink.series, rounds);
  ASSERT_EQ(w.troubles().count(path), 1u);
  const Trouble& t = w.troubles().at(path);
  EXPECT_EQ(t.episodes, rounds);
  EXPECT_EQ(t.lost, rounds);
  EXPECT_TRUE(t.unreadable);
  // Three lines as it happens (bad, back, bad again: quiet from then on), one at the end.
  ASSERT_EQ(lines.size(), 4u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(lines[0].starts_with(path + ": ")) << lines[0];
  EXPECT_EQ(lines[1], path + ": readable again (1 sample lost)");
  EXPECT_TRUE(lines[3].starts_with(path + " was unreadable 300 times, 300 samples lost; still "
                                          "unreadable at the end: "))
      << lines[3];
}

// A writer thread truncating and rewriting the file in small pieces as fast as it can, polled
// without a pause: however the two interleave, the errors and recoveries pair up, every spell
// is counted, and stderr stays within its bound.
TEST(MmvFlapping, AWriterRewritingTheFileAsFastAsItCanGivesAFewLines) {
  const std::string bytes = pcp_file_bytes("flap-thread");
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir / "app";
  write_all(path, bytes, bytes.size());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> rewrites{0};
  std::thread writer([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      write_all(path, bytes, 64);
      rewrites.fetch_add(1, std::memory_order_relaxed);
    }
  });
  std::vector<std::string> lines;
  MmvNotices notices([&](const std::string& l) { lines.push_back(l); });
  CountingSink sink(&notices);
  Watcher w({{path, false}});
  // Until the writer has gone round a good many times (however slowly it gets a CPU).
  for (int polls = 0; polls < 3000 || rewrites.load() < 200; ++polls) w.poll(sink);
  stop = true;
  writer.join();
  notices.finish(w.troubles());
  const uint64_t episodes = w.troubles().count(path) ? w.troubles().at(path).episodes : 0;
  EXPECT_EQ(sink.errors, episodes);
  EXPECT_LE(sink.readable, episodes);
  EXPECT_GE(sink.readable + 1, episodes);
  if (episodes > 0) {
    EXPECT_GE(w.troubles().at(path).lost, episodes);
  }
  EXPECT_LE(lines.size(), 4u) << ::testing::PrintToString(lines);
}

#endif  // HEARTH_HAVE_PCP_MMV

}  // namespace
}  // namespace hearth::mmv
