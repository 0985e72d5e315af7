// `hearth serve`'s listing of reports (render/serve/listing.h, report_summary.h): what it says
// of each report, from its report.json, and what it does with a damaged or planted one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "render/serve/listing.h"
#include "render/serve/report_summary.h"
#include "tests/unit/temp_dir.h"

namespace hearth::serve {
namespace {

using testing_support::TempDir;

const char* kRecorded = R"({
  "collectors": {"stacks": {"method": "bpf", "stall_median_ms": 0.059, "stall_max_ms": 0.104,
                            "status": "ok"}},
  "host": "db-7", "started": "2026-11-22T06:51:09Z", "window_s": 2.136,
  "target": {"cmdline": "mariadbd", "comm": "mariadbd", "pid": 345}})";

TEST(ServeReportSummary, SaysWhenWhatWhereAndAtWhatCost) {
  const ReportSummary s = summarize_report(kRecorded);
  EXPECT_TRUE(s.readable);
  ASSERT_TRUE(s.started);
  EXPECT_EQ(*s.started, 1795330269);  // 2026-11-22 06:51:09 UTC
  EXPECT_EQ(s.target, "mariadbd (pid 345)");
  EXPECT_EQ(s.host, "db-7");
  EXPECT_EQ(s.window, "2.14 s");
  EXPECT_EQ(s.cost, "bpf, stall median 0.059 ms, max 0.104 ms");
  EXPECT_EQ(s.trigger, "");
}

TEST(ServeReportSummary, NamesTheRuleThatFiredAndASetsSize) {
  const ReportSummary s = summarize_report(R"({
    "started": "2026-11-22T06:51:09.250Z", "window_s": 30,
    "trigger": {"rule": "slow_disk", "text": "pcp:disk.dev.await > 50 for 3s", "value": 73.5,
                "at": "2026-11-22T06:51:19Z"},
    "target": {"comm": "postgres", "pid": 10, "processes": [{"pid": 10}, {"pid": 11}, {"pid": 12}],
               "selection": {"children": true}}})");
  ASSERT_TRUE(s.started);
  EXPECT_EQ(*s.started, 1795330269);
  EXPECT_EQ(s.trigger, "slow_disk: pcp:disk.dev.await > 50 for 3s (was 73.5)");
  EXPECT_EQ(s.target, "postgres (pid 10) and 2 more processes");
  EXPECT_EQ(s.window, "30 s");
  EXPECT_EQ(s.cost, "");
}

TEST(ServeReportSummary, DamagedOrHostileFilesGiveNothingRaw) {
  for (const char* text : {"", "{", "[1,2]", "\"x\"", "{\"started\": 1} trailing"}) {
    SCOPED_TRACE(text);
    const ReportSummary s = summarize_report(text);
    EXPECT_FALSE(s.readable);
    EXPECT_FALSE(s.started);
  }
  EXPECT_FALSE(summarize_report(std::string(kMaxReportJson + 1, ' ')).readable);
  // Wrong types are left out; control characters are dropped; a long text is cut.
  const ReportSummary s = summarize_report(
      R"({"started": "yesterday", "host": "a\u0007\u001b[2Jb", "window_s": "long",
          "target": {"comm": ")" +
      std::string(300, 'x') + R"(", "pid": -1}, "collectors": {"stacks": 7}})");
  EXPECT_TRUE(s.readable);
  EXPECT_FALSE(s.started);
  EXPECT_EQ(s.host, "a[2Jb");
  EXPECT_EQ(s.window, "");
  EXPECT_EQ(s.target, std::string(200, 'x') + "...");
  EXPECT_EQ(s.cost, "");
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

void set_mtime(const std::string& path, time_t t) {
  const timespec times[2] = {{t, 0}, {t, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// The order comes from the recordings' start (a copied report has the copy's file time), and a
// report.json that leads out of the directory is not read.
TEST(ServeListing, ReportsAreOrderedByTheirRecordingsStartAndSummarized) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  write(dir / "copied-old/index.html", "<html></html>");
  write(dir / "copied-old/report.json",
        R"({"started": "2026-01-01T00:00:00Z", "host": "<b>h</b>", "window_s": 10})");
  set_mtime(dir / "copied-old/report.json", 1900000000);  // copied later than the other ran
  write(dir / "recent/index.html", "<html></html>");
  write(dir / "recent/report.json", kRecorded);
  set_mtime(dir / "recent/report.json", 1700000000);
  write(dir / "planted/index.html", "<html></html>");
  write(dir / "secret.json", R"({"host": "secret-host"})");
  ASSERT_EQ(::symlink("/etc/hostname", (dir / "planted/report.json").c_str()), 0);
  write(dir / "notes.txt", "x");
  const timespec old_times[2] = {{1600000000, 0}, {1600000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir / "planted/report.json").c_str(), old_times,
                        AT_SYMLINK_NOFOLLOW),
            0);

  const int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::vector<ListingEntry> entries = list_directory(fd);
  ::close(fd);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].name, "recent");      // started 2026-11-22
  EXPECT_EQ(entries[1].name, "copied-old");  // started 2026-01-01, file time 2030
  EXPECT_EQ(entries[2].name, "planted");
  EXPECT_FALSE(entries[2].summary.readable);  // a symlink out of the directory: not followed
  EXPECT_EQ(entries[3].name, "notes.txt");
  EXPECT_EQ(entries[4].name, "secret.json");

  const std::string page = index_page("/", entries);
  EXPECT_NE(page.find("<th>Host</th>"), std::string::npos);
  EXPECT_NE(page.find("<th>Sampling cost</th>"), std::string::npos);
  EXPECT_EQ(page.find("<th>Rule fired</th>"), std::string::npos) << "no report has one";
  EXPECT_NE(page.find("&lt;b&gt;h&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<b>h</b>"), std::string::npos);
  EXPECT_NE(page.find("2026-11-22 06:51:09 UTC"), std::string::npos);
  EXPECT_NE(page.find("(file time; no readable report.json)"), std::string::npos);
  EXPECT_NE(page.find("id=\"filter\""), std::string::npos);
  EXPECT_NE(page.find("<h2>Files</h2>"), std::string::npos);
  for (const char c : page) EXPECT_LT(static_cast<unsigned char>(c), 0x80) << "ASCII only";

  // Reports only, at the top: no Files section, no column without a value.
  std::vector<ListingEntry> reports(entries.begin(), entries.begin() + 2);
  const std::string only = index_page("/", reports);
  EXPECT_EQ(only.find("<h2>Files</h2>"), std::string::npos);
  EXPECT_NE(only.find("<h2>Reports, newest first</h2>"), std::string::npos);
  // Nothing at all below the top: no empty sections either.
  const std::string empty = index_page("/", {});
  EXPECT_EQ(empty.find("<h2>"), std::string::npos);
}

}  // namespace
}  // namespace hearth::serve
