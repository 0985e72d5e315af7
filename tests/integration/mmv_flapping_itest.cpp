// `hearth mmv -i 0.001 -d 3` on a file a writer keeps truncating and rewriting: a few stderr
// lines (gone bad, back, flapping, and the count at the end), not one per change of reason.
#ifdef HEARTH_HAVE_PCP_MMV

// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"

namespace hearth {
namespace {

using testing_support::exited_with;
using testing_support::run_hearth;
using testing_support::slurp;
using testing_support::split;

mmv_metric_t metrics[] = {
    {"count", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(0, 0, 1, 0, 0, 0), 0, nullptr, nullptr},
    {"text", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
};

// A whole file as libpcp_mmv writes it (in a directory of this test's own).
std::string pcp_file_bytes() {
  const std::string pcp_tmp = testing::TempDir() + "/pcp-tmp";
  ::mkdir(pcp_tmp.c_str(), 0755);
  ::mkdir((pcp_tmp + "/mmv").c_str(), 0755);
  ::setenv("PCP_TMP_DIR", pcp_tmp.c_str(), 1);  // read by libpcp at its first use
  void* m =
      mmv_stats_init("flapping", 0, static_cast<mmv_stats_flags_t>(0), metrics, 2, nullptr, 0);
  EXPECT_NE(m, nullptr);
  std::string bytes = slurp(pcp_tmp + "/mmv/flapping");
  mmv_stats_stop("flapping", m);
  return bytes;
}

TEST(MmvCli, AFileRewrittenOverAndOverGivesAFewLinesAndACount) {
  const std::string bytes = pcp_file_bytes();
  ASSERT_GT(bytes.size(), 100u);
  const std::string path = testing::TempDir() + "/app.mmv";
  const std::string out = testing::TempDir() + "/flapping.tsv";
  // The writer: truncate, write the file back in small pieces, over and over.
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) return;
      for (size_t at = 0; at < bytes.size(); at += 64) {
        (void)!::write(fd, bytes.data() + at, std::min<size_t>(64, bytes.size() - at));
      }
      ::close(fd);
      std::this_thread::yield();
    }
  });
  while (::access(path.c_str(), F_OK) != 0) std::this_thread::yield();
  testing_support::HearthRun r = run_hearth({"mmv", "-i", "0.001", "-d", "3", path, "-o", out});
  stop = true;
  writer.join();
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  std::vector<std::string> lines = split(r.err, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  // Gone bad, back, bad again (then quiet), and the count: 866 lines before.
  EXPECT_LE(lines.size(), 4u) << r.err;
  ASSERT_FALSE(lines.empty()) << "the file never looked damaged in 3 s of 1 ms polls";
  EXPECT_TRUE(lines.front().starts_with("hearth mmv: " + path + ": ")) << r.err;
  EXPECT_TRUE(lines.back().starts_with("hearth mmv: " + path + " was unreadable ")) << r.err;
  EXPECT_NE(lines.back().find(" lost"), std::string::npos) << r.err;
  // The TSV keeps every error and recovery.
  const std::string tsv = slurp(out);
  EXPECT_NE(tsv.find("\terror\t"), std::string::npos);
}

}  // namespace
}  // namespace hearth

#endif  // HEARTH_HAVE_PCP_MMV
