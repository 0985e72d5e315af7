// `hearth record --alloc` against alloc_target (three allocation sites with known byte totals):
// the report directory gets the allocation profiles and a "mem" section in index.html with the
// sites in their proportions, report.json says what was sampled and lost, `hearth report`
// draws it again; a SIGKILL of hearth record leaves no program nor breakpoint behind. Needs root.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "formats/series_tsv.h"
#include "tests/integration/alloc_test_support.h"
#include "tests/integration/bpf_support.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace hearth::record_alloc_itest {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;
using hearth::testing_support::exited_with;
using hearth::testing_support::fresh_dir;
using hearth::testing_support::HearthRun;
using hearth::testing_support::malloc_address;
using hearth::testing_support::memory_byte;
using hearth::testing_support::program_exists;
using hearth::testing_support::programs_held;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;
using hearth::testing_support::weight_at;

// Waits (bounded) until hearth record's stderr says the allocation probes are on; false if it
// ended or never did.
bool wait_alloc_sampling(pid_t hearth, const std::string& err) {
  for (int i = 0; i < 3000; ++i) {
    if (slurp(err).find("hearth record: alloc: sampling ") != std::string::npos) return true;
    int status = 0;
    if (waitpid(hearth, &status, WNOHANG) == hearth) return false;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

class RecordAlloc : public testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
  }
};

// Two threads x 10,000 rounds: 200 MB at 60/30/10 between the sites, 720,000 calls; at a mean of
// 16 KiB ~12,000 samples, ~1,200 at the smallest site (a relative error of ~3%: 15% is five of
// them, whatever the load). The window is what the rounds take: the target exits, and the
// recording ends with it.
TEST_F(RecordAlloc, ReportHasTheMemSectionWithTheSitesInProportion) {
  auto t = Target::start("alloc_target-nofp", {"--threads", "2", "--rounds", "10000"});
  ASSERT_TRUE(t);
  ASSERT_NE(malloc_address(*t), 0u);
  const fs::path dir = fresh_dir("record_alloc");
  const std::string err = (fs::path(::testing::TempDir()) / "record_alloc.err").string();
  fs::remove(err);  // an earlier run's "sampling" line is not this one's
  pid_t h =
      start_hearth({"record", "-p", std::to_string(t->pid()), "-d", "120", "--no-sched", "--no-mmv",
                    "--alloc", "bytes,count", "--alloc-mean", "16384", "-o", dir.string()},
                   err);
  ASSERT_TRUE(wait_alloc_sampling(h, err)) << slurp(err);
  ASSERT_EQ(write(t->stdin_fd(), "go\n", 3), 3);
  auto done = t->read_line(120s);
  ASSERT_TRUE(done && done->starts_with("done ")) << (done ? *done : "no line");
  double truth[3];
  ASSERT_EQ(std::sscanf(done->c_str(), "done %lf %lf %lf", &truth[0], &truth[1], &truth[2]), 3);
  t->close_stdin();  // the target exits: the recording's window ends with it
  const int code = hearth::testing_support::wait_exit(h);
  const std::string e = slurp(err);
  ASSERT_EQ(code, 0) << e;

  for (const char* f : {"alloc.folded", "alloc.count.folded", "alloc.svg", "alloc.count.svg",
                        "index.html", "report.json", "stacks.folded", "flame.svg"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f << "\n" << e;
  }
  EXPECT_FALSE(fs::exists(dir / "alloc.live.folded"));  // not asked for
  // report.json: what was sampled and lost.
  json meta = json::parse(slurp(dir / "report.json"), nullptr, false);
  ASSERT_TRUE(meta.is_object());
  const json& a = meta["collectors"]["alloc"];
  EXPECT_EQ(a["status"], "ok") << a.dump(2);
  EXPECT_EQ(a["views"], "bytes,count");
  EXPECT_EQ(a["mean_bytes"], 16384);
  EXPECT_GE(a["calls"].get<uint64_t>(), 720000u) << a.dump(2);
  EXPECT_GT(a["samples"].get<uint64_t>(), 5000u) << a.dump(2);
  EXPECT_TRUE(a["lost"].is_number_unsigned()) << a.dump(2);
  EXPECT_FALSE(a.contains("dropped"));  // the live view's only

  // The allocation rate: every call counted in the kernel, read every 100 ms; its last point is
  // the window's totals, and the rounds (run between two points, after "go") show as calls
  // rising from one point to a later one.
  {
    auto rate = series::read_series_tsv((dir / "alloc.rate.tsv").string());
    ASSERT_TRUE(rate.has_value()) << rate.error().message;
    EXPECT_EQ(rate->clock, "realtime");
    ASSERT_EQ(rate->metrics.size(), 2u);
    std::vector<uint64_t> calls, bytes;
    for (const series::Point& p : rate->points) {
      (rate->metrics[p.metric].name == "alloc.calls" ? calls : bytes).push_back(p.exact);
    }
    ASSERT_GE(calls.size(), 3u);
    ASSERT_EQ(calls.size(), bytes.size());
    EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end()));
    EXPECT_EQ(calls.back(), a["calls"].get<uint64_t>());
    EXPECT_EQ(bytes.back(), a["bytes"].get<uint64_t>());
    EXPECT_LT(calls.front(), 720000u);  // before "go"
    EXPECT_EQ(a["rate_points"].get<size_t>(), calls.size());
  }

  // The bytes: each site's share within 15% of the truth.
  const std::string folded = slurp(dir / "alloc.folded");
  const double total = truth[0] + truth[1] + truth[2];
  const char* sites[] = {"alloc_site_a", "alloc_site_b", "alloc_site_c"};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(sites[i]);
    const hearth::testing_support::SiteWeight w = weight_at(folded, sites[i]);
    ASSERT_GT(w.site, 0) << folded.substr(0, 2000);
    EXPECT_NEAR(w.site / w.all, truth[i] / total, 0.15 * truth[i] / total) << a.dump(2);
  }
  // The calls: 30 callocs a round at site b for 4 mallocs at site a (site c's 16-byte malloc is
  // sampled too rarely at this mean to be held to a tolerance).
  const std::string calls = slurp(dir / "alloc.count.folded");
  const double ratio =
      weight_at(calls, "alloc_site_b").site / weight_at(calls, "alloc_site_a").site;
  EXPECT_NEAR(ratio, 7.5, 0.15 * 7.5) << calls.substr(0, 2000);

  // The page: a "mem" section beside the stacks', its two flamegraphs in the mem palette.
  const std::string html = slurp(dir / "index.html");
  EXPECT_NE(html.find("<section id=\"mem\">"), std::string::npos);
  EXPECT_NE(html.find("data=\"alloc.svg\""), std::string::npos);
  EXPECT_NE(html.find("data=\"alloc.count.svg\""), std::string::npos);
  EXPECT_NE(html.find("data=\"alloc.rate.svg\""), std::string::npos);
  // The time view links the rate with the heatmap (the samples recorded their wall clock).
  EXPECT_NE(slurp(dir / "when.html")
                .find("\"src\":\"alloc.rate.svg\",\"title\":\"Allocation rate\",\"linked\":true"),
            std::string::npos);
  EXPECT_NE(html.find("<td>alloc</td>"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"stacks\">"), html.find("<section id=\"mem\">"));
  const std::string svg = slurp(dir / "alloc.svg");
  EXPECT_NE(svg.find("alloc_site_a"), std::string::npos);
  EXPECT_NE(svg.find(" bytes"), std::string::npos);
  EXPECT_NE(svg.find("lost), one per 16 KiB on average"), std::string::npos);

  // `hearth report DIR` draws the section again from the files.
  fs::remove(dir / "alloc.svg");
  fs::remove(dir / "index.html");
  HearthRun r = run_hearth({"report", dir.string()});
  EXPECT_TRUE(exited_with(r, 0)) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "alloc.svg"));
  EXPECT_NE(slurp(dir / "index.html").find("data=\"alloc.svg\""), std::string::npos);
  fs::remove_all(dir);
}

// A SIGKILL of hearth record (no cleanup code runs): the breakpoint at the target's malloc and
// the programs go with hearth's file descriptors; the target allocates on.
TEST_F(RecordAlloc, NothingStaysInTheKernelOrTheTargetAfterSigkill) {
  auto t = Target::start("alloc_target-fp", {"--threads", "2", "--rounds", "0"});
  ASSERT_TRUE(t);
  const uint64_t at = malloc_address(*t);
  ASSERT_NE(at, 0u);
  const int original = memory_byte(t->pid(), at);
  ASSERT_GE(original, 0);
  ASSERT_NE(original, 0xcc);
  const fs::path dir = fresh_dir("record_alloc_kill");
  const std::string err = (fs::path(::testing::TempDir()) / "record_alloc_kill.err").string();
  fs::remove(err);  // an earlier run's "sampling" line is not this one's
  pid_t h = start_hearth({"record", "-p", std::to_string(t->pid()), "-d", "120", "--no-sched",
                          "--no-mmv", "--alloc", "bytes,live", "-o", dir.string()},
                         err);
  ASSERT_TRUE(wait_alloc_sampling(h, err)) << slurp(err);
  std::vector<__u32> held = programs_held(h, "hearth_malloc");
  for (__u32 id : programs_held(h, "hearth_free")) held.push_back(id);
  ASSERT_EQ(held.size(), 2u) << slurp(err);
  EXPECT_EQ(memory_byte(t->pid(), at), 0xcc) << "no breakpoint at malloc while recording";
  kill(h, SIGKILL);
  int status = 0;
  waitpid(h, &status, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !program_exists(held[0]) && !program_exists(held[1]) &&
           memory_byte(t->pid(), at) == original;
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "a program still loaded, or malloc's first byte "
                    << memory_byte(t->pid(), at) << " not back to " << original;
  const std::string events = slurp("/sys/kernel/tracing/uprobe_events");
  EXPECT_EQ(events.find("libbpf_" + std::to_string(h) + "_"), std::string::npos) << events;
  EXPECT_FALSE(fs::exists(dir / "alloc.folded"));  // nothing half-written
  EXPECT_EQ(kill(t->pid(), 0), 0);
  fs::remove_all(dir);
}

// hearth watch --alloc: the report written when a rule holds holds the allocation profile of its
// window after the trigger (the probes attached then, gone after), its sites by name, and its
// "mem" section; while watching nothing is probed. Bad --alloc options are one line each.
TEST_F(RecordAlloc, WatchAllocProfilesTheWindowAfterTheTrigger) {
  auto t = Target::start("alloc_target-nofp", {"--threads", "2", "--rounds", "0"});
  ASSERT_TRUE(t);
  const uint64_t at = malloc_address(*t);
  ASSERT_NE(at, 0u);
  const int original = memory_byte(t->pid(), at);
  const fs::path dir = fresh_dir("watch_alloc");
  testing_support::PcpTmpDir pcp_tmp(dir / "tmp");  // nothing published to the host's PCP
  const std::string err = (dir / "watch.err").string();
  pid_t h = start_hearth({"watch", "-p", std::to_string(t->pid()), "-o", (dir / "out").string(),
                          "--rule", "busy = cpu > 20% for 2s", "--after", "2", "--max-reports",
                          "1", "--no-publish", "--alloc", "bytes,count", "--alloc-mean", "16384"},
                         err);
  ASSERT_TRUE(testing_support::wait_for_text(err, "watching 1 process")) << slurp(err);
  EXPECT_EQ(memory_byte(t->pid(), at), original) << "a breakpoint at malloc while only watching";
  ASSERT_EQ(testing_support::wait_exit(h), 0) << slurp(err);
  EXPECT_EQ(memory_byte(t->pid(), at), original) << "malloc's breakpoint left after the window";
  fs::path report;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    if (fs::exists(e.path() / "report.json")) report = e.path();
  }
  ASSERT_FALSE(report.empty()) << slurp(err);
  for (const char* f : {"alloc.folded", "alloc.count.folded", "alloc.svg", "alloc.rate.tsv",
                        "alloc.rate.svg", "index.html"}) {
    EXPECT_TRUE(fs::is_regular_file(report / f)) << f << "\n" << slurp(err);
  }
  // The window's allocation rate on the time view's axis, beside the heatmap.
  EXPECT_NE(slurp(report / "when.html")
                .find("\"src\":\"alloc.rate.svg\",\"title\":\"Allocation rate\",\"linked\":true"),
            std::string::npos);
  json meta = json::parse(slurp(report / "report.json"), nullptr, false);
  ASSERT_TRUE(meta.is_object());
  const json& a = meta["collectors"]["alloc"];
  EXPECT_EQ(a["status"], "ok") << a.dump(2);
  EXPECT_EQ(a["views"], "bytes,count");
  EXPECT_GT(a["samples"].get<uint64_t>(), 0u) << a.dump(2);
  EXPECT_EQ(meta["trigger"]["rule"], "busy");
  const std::string folded = slurp(report / "alloc.folded");
  for (const char* site : {"alloc_site_a", "alloc_site_b"}) {
    EXPECT_GT(weight_at(folded, site).site, 0) << site << "\n" << folded.substr(0, 2000);
  }
  EXPECT_NE(slurp(report / "index.html").find("<section id=\"mem\">"), std::string::npos);

  HearthRun bad = run_hearth({"watch", "--comm", "x", "-o", (dir / "bad").string(), "--rule",
                              "busy = cpu > 20%", "--alloc", "heap"});
  EXPECT_TRUE(exited_with(bad, 2)) << bad.err;
  EXPECT_NE(bad.err.find("hearth watch: --alloc takes bytes, count or live"), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("hearth watch: --alloc takes one process: one -p"), std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}

// --alloc's mistakes: one line each, all at once, exit 2, nothing created.
TEST(RecordAllocCli, BadViewsAndSelectionsAreOneLineEach) {
  const fs::path dir = fresh_dir("record_alloc_bad");
  HearthRun r = run_hearth({"record", "-p", std::to_string(getpid()), "--comm", "x", "--alloc",
                            "bytes,heap", "-o", dir.string()});
  EXPECT_TRUE(exited_with(r, 2)) << r.err;
  EXPECT_NE(r.err.find("hearth record: --alloc takes bytes, count or live, or several "
                       "comma-separated (bytes,live)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hearth record: --alloc takes one process: one -p, without --children or "
                       "--comm\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace hearth::record_alloc_itest
