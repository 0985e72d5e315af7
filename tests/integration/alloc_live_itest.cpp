// `hearth alloc --live` and `--count` against heap_target, whose sites, calls and kept blocks are
// known: the live view shows only the kept sites, in their proportions; the call counts give
// every one-call-a-round site the same count (an aligned entry counted twice, through an alias
// or through glibc handing small alignments to malloc, would double its own); the aligned family
// and operator new appear by name; a live map too small drops blocks and says so; and a SIGKILL
// leaves no breakpoint at free nor any program loaded.
//
// No timing: hearth is started, the target's rounds run once hearth says it is sampling, the
// target prints "done" and exits when its stdin closes, which ends hearth's window.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/integration/bpf_support.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::program_exists;
using hearth::testing_support::programs_held;
using hearth::testing_support::slurp;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;
using hearth::testing_support::wait_exit;
using hearth::testing_support::wait_for_text;

constexpr const char* kKept[] = {"heap_keep_big", "heap_keep_aligned", "heap_keep_realloc"};
constexpr double kKeptBytes[] = {3000, 1000, 2000};  // a round
constexpr const char* kFreed[] = {"heap_free_all",       "heap_realloc_away", "heap_memalign",
                                  "heap_aligned_alloc",  "heap_valloc",       "heap_pvalloc",
                                  "heap_memalign_small", "heap_operator_new"};

// The weight of each folded line's innermost heap_* frame (the site), and of all lines.
struct HeapSites {
  std::map<std::string, double> at;
  double all = 0;
};
HeapSites by_heap_site(const std::string& folded) {
  HeapSites s;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    const size_t space = l.rfind(' ');
    if (space == std::string::npos) continue;
    const double n = std::strtod(l.c_str() + space + 1, nullptr);
    s.all += n;
    const size_t at = l.rfind(";heap_", space);
    if (at == std::string::npos) continue;
    const size_t end = l.find_first_of("; ", at + 1);
    s.at[l.substr(at + 1, end - at - 1)] += n;
  }
  return s;
}

// The frames right under SITE (";SITE;FRAME") in FOLDED's lines: the entry a site called.
std::set<std::string> frames_under(const std::string& folded, const std::string& site) {
  std::set<std::string> out;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    const size_t at = l.find(";" + site + ";");
    if (at == std::string::npos) continue;
    const size_t from = at + site.size() + 2;
    const size_t end = l.find(';', from);
    out.insert(l.substr(from, (end == std::string::npos ? l.rfind(' ') : end) - from));
  }
  return out;
}

// The first 16 bytes of process PID's memory at ADDR ("" when unreadable): free's start, where
// hearth's uprobe writes its breakpoint (at the entry, or just past glibc's null check).
std::string live_bytes_at(pid_t pid, uint64_t addr) {
  const int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (fd < 0) return "";
  std::string b(16, '\0');
  const ssize_t n = pread(fd, b.data(), b.size(), static_cast<off_t>(addr));
  close(fd);
  return n == 16 ? b : "";
}

struct HeapRun {
  std::string folded, err;
  double rounds = 0;
  int status = -1;
};

// Starts heap_target with THREADS x ROUNDS, hearth alloc on it with ARGS (and -o OUT), lets the
// rounds run once hearth samples, then ends the target (and so hearth's window).
HeapRun run_on_heap_target(const std::vector<std::string>& args, long rounds,
                           const std::string& output = "heap.folded") {
  HeapRun r;
  auto t =
      Target::start("heap_target-nofp", {"--threads", "2", "--rounds", std::to_string(rounds)});
  if (!t) {
    ADD_FAILURE() << "heap_target did not start";
    return r;
  }
  auto free_line = t->read_line(10s);
  EXPECT_TRUE(free_line && free_line->starts_with("free "));
  const std::string dir = ::testing::TempDir();
  const std::string err = dir + "/heap.err", out = dir + "/" + output;
  // An earlier test's files: its "sampling" line is not this run's (the rounds would start
  // before hearth samples), nor its output.
  std::filesystem::remove(err);
  std::filesystem::remove(out);
  std::vector<std::string> a = {"alloc", "-p", std::to_string(t->pid()), "-d", "300", "-o", out};
  a.insert(a.end(), args.begin(), args.end());
  const pid_t h = start_hearth(a, err);
  if (!wait_for_text(err, "hearth alloc: sampling ")) {
    kill(h, SIGKILL);
    waitpid(h, nullptr, 0);
    ADD_FAILURE() << "hearth never sampled: " << slurp(err);
    return r;
  }
  EXPECT_EQ(write(t->stdin_fd(), "go\n", 3), 3);
  auto done = t->read_line(240s);
  EXPECT_TRUE(done && done->starts_with("done ")) << (done ? *done : "no line");
  if (done) r.rounds = std::strtod(done->c_str() + 5, nullptr);
  t->close_stdin();  // the target exits, its kept blocks never freed: hearth's window ends
  r.status = wait_exit(h);
  r.err = slurp(err);
  r.folded = slurp(out);
  return r;
}

class AllocLive : public testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
  }
};

// 2 threads x 5,000 rounds at --mean 8192: ~60 MB kept, ~1,100 samples at the smallest kept site
// (heap_keep_aligned: a relative error of ~3%); 15% is five of them. The freed sites' blocks
// are all freed before the window ends: none of them may show, whatever the load.
TEST_F(AllocLive, OnlyTheKeptSitesInTheirProportions) {
  const HeapRun r = run_on_heap_target({"--live", "--mean", "8192"}, 5000);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("live view: the sampled blocks are followed until free"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("wrote "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(live bytes)"), std::string::npos) << r.err;
  // Every stack whole, those sampled in a malloc that memalign(8) or realloc(NULL) called too,
  // though their callers' return addresses were the uretprobes' trampoline then.
  EXPECT_NE(r.err.find("(0 truncated)"), std::string::npos) << r.err;
  const HeapSites s = by_heap_site(r.folded);
  for (const char* f : kFreed) EXPECT_EQ(s.at.count(f), 0u) << f << " freed, yet live:\n" << r.err;
  double kept_total = 0;
  for (double b : kKeptBytes) kept_total += b;
  double sites_total = 0;
  for (const char* k : kKept) sites_total += s.at.count(k) ? s.at.at(k) : 0;
  ASSERT_GT(sites_total, 0) << r.folded.substr(0, 2000);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(kKept[i]);
    ASSERT_TRUE(s.at.count(kKept[i])) << r.folded.substr(0, 2000);
    const double share = s.at.at(kKept[i]) / sites_total, truth = kKeptBytes[i] / kept_total;
    EXPECT_NEAR(share, truth, 0.15 * truth) << r.err;
    // And the bytes themselves, when no sample was lost nor dropped.
    if (r.err.find("(0 lost") != std::string::npos &&
        r.err.find(" 0 dropped") != std::string::npos) {
      EXPECT_NEAR(s.at.at(kKept[i]), kKeptBytes[i] * r.rounds, 0.15 * kKeptBytes[i] * r.rounds);
    }
  }
  // The kept sites are (nearly) all of it: what else is live was allocated by the runtime.
  EXPECT_GT(sites_total / s.all, 0.95) << r.folded.substr(0, 2000);
  // The posix_memalign'ed blocks are found by their allocator's name too.
  EXPECT_NE(r.folded.find(";heap_keep_aligned;posix_memalign "), std::string::npos)
      << r.folded.substr(0, 2000);
}

// Calls: every site of one call a round gets the same estimated count; at --mean 8192 their
// 1,000-4,096-byte calls are sampled with p = 0.12-0.39, ~1,200-3,900 samples each: a ratio to
// heap_free_all's count within 15% is over four standard deviations.
TEST_F(AllocLive, CallsPerSiteAndTheAlignedFamilyByName) {
  const HeapRun r = run_on_heap_target({"--count", "--mean", "8192"}, 5000);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("(calls)"), std::string::npos) << r.err;
  for (const char* entry : {"posix_memalign", "memalign (= aligned_alloc)", "valloc", "pvalloc"})
    EXPECT_NE(r.err.find(entry), std::string::npos) << entry << " not probed: " << r.err;
  const HeapSites s = by_heap_site(r.folded);
  ASSERT_TRUE(s.at.count("heap_free_all")) << r.folded.substr(0, 2000);
  const double base = s.at.at("heap_free_all");
  for (const char* site :
       {"heap_keep_big", "heap_keep_aligned", "heap_memalign", "heap_aligned_alloc", "heap_valloc",
        "heap_pvalloc", "heap_memalign_small", "heap_operator_new"}) {
    SCOPED_TRACE(site);
    ASSERT_TRUE(s.at.count(site)) << r.folded.substr(0, 3000);
    EXPECT_NEAR(s.at.at(site) / base, 1.0, 0.15) << r.err;
  }
  if (r.err.find("(0 lost") != std::string::npos) {
    EXPECT_NEAR(base, r.rounds, 0.15 * r.rounds) << r.err;
  }
  // Each site through its own entry, by name: the frame under the site (glibc names them
  // __libc_memalign, __libc_valloc…; its aligned_alloc is its memalign; a small alignment is
  // handed to malloc; libstdc++'s operator new calls malloc).
  const std::pair<const char*, std::vector<const char*>> entries[] = {
      {"heap_keep_aligned", {"posix_memalign"}},
      {"heap_memalign", {"memalign"}},
      {"heap_aligned_alloc", {"memalign", "aligned_alloc"}},
      {"heap_valloc", {"valloc"}},
      {"heap_pvalloc", {"pvalloc"}},
      {"heap_memalign_small", {"malloc"}},
      {"heap_operator_new", {"operator new"}}};
  for (const auto& [site, names] : entries) {
    SCOPED_TRACE(site);
    const std::set<std::string> under = frames_under(r.folded, site);
    ASSERT_FALSE(under.empty()) << r.folded.substr(0, 3000);
    for (const std::string& f : under) {
      bool named = false;
      for (const char* n : names) named = named || f.find(n) != std::string::npos;
      EXPECT_TRUE(named) << f;
    }
  }
  const size_t at = r.folded.find(";heap_operator_new;");
  ASSERT_NE(at, std::string::npos);
  const std::string line = r.folded.substr(at, r.folded.find('\n', at) - at);
  EXPECT_NE(line.find("malloc "), std::string::npos) << line;
  // Every call counted once: 13 a round (the memalign(8) once, at malloc; aligned_alloc once,
  // though glibc gives memalign two names), and only a few more from the runtime.
  const size_t calls_at = r.err.find(" allocator calls");
  ASSERT_NE(calls_at, std::string::npos) << r.err;
  std::string digits;
  for (size_t i = r.err.rfind(": ", calls_at) + 2; i < calls_at; ++i)
    if (std::isdigit(static_cast<unsigned char>(r.err[i]))) digits += r.err[i];
  const double calls = std::strtod(digits.c_str(), nullptr);
  EXPECT_GE(calls, 13 * r.rounds) << r.err;
  EXPECT_LE(calls, 13 * r.rounds + 1000) << r.err;
}

// A live map of 64 blocks: the rest are dropped, counted, and said, on stderr and under the
// picture's title; what was tracked is drawn, the freed sites nowhere.
TEST_F(AllocLive, AFullLiveMapDropsAndSaysSo) {
  const HeapRun r =
      run_on_heap_target({"--live", "--mean", "8192", "--live-max", "64"}, 2000, "heap.svg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("live map of 64,"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" 0 dropped"), std::string::npos) << r.err;
  const std::string& svg = r.folded;
  EXPECT_NE(svg.find("Live heap: process "), std::string::npos);
  const size_t live_at = svg.find("; live: 64 sampled blocks (");
  ASSERT_NE(live_at, std::string::npos) << svg.substr(0, 3000);
  const std::string said = svg.substr(live_at, svg.find(')', live_at) - live_at);
  EXPECT_NE(said.find(" dropped: map full"), std::string::npos) << said;
  EXPECT_EQ(said.find(" 0 dropped"), std::string::npos) << said;
  EXPECT_NE(svg.find("heap_keep_big"), std::string::npos);
  for (const char* f : kFreed) EXPECT_EQ(svg.find(f), std::string::npos) << f;
}

// The live view's extra probes (free, and the uretprobes on every allocation entry) go with
// hearth's descriptors: after a SIGKILL, free's first bytes are back and no program is loaded.
TEST_F(AllocLive, NothingStaysAfterSigkill) {
  auto t = Target::start("heap_target-fp", {"--threads", "1", "--rounds", "1000"});
  ASSERT_TRUE(t);
  auto free_line = t->read_line(10s);
  ASSERT_TRUE(free_line && free_line->starts_with("free ")) << (free_line ? *free_line : "");
  const uint64_t at = std::strtoull(free_line->c_str() + 5, nullptr, 16);
  const std::string original = live_bytes_at(t->pid(), at);
  ASSERT_EQ(original.size(), 16u);
  const std::string dir = ::testing::TempDir();
  const std::string err = dir + "/kill.err", out = dir + "/kill.folded";
  std::filesystem::remove(err);  // an earlier run's "sampling" line is not this one's
  std::filesystem::remove(out);
  const pid_t h = start_hearth(
      {"alloc", "-p", std::to_string(t->pid()), "-d", "300", "--live", "-o", out}, err);
  ASSERT_TRUE(wait_for_text(err, "hearth alloc: sampling ")) << slurp(err);
  std::vector<__u32> held;
  for (const char* name : {"hearth_free", "hearth_alloc_re", "hearth_posix_me", "hearth_malloc"}) {
    const std::vector<__u32> ids = programs_held(h, name);
    EXPECT_EQ(ids.size(), 1u) << name;
    held.insert(held.end(), ids.begin(), ids.end());
  }
  EXPECT_NE(live_bytes_at(t->pid(), at), original) << "no breakpoint in free while sampling";
  kill(h, SIGKILL);
  waitpid(h, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = live_bytes_at(t->pid(), at) == original;
    for (__u32 id : held) gone = gone && !program_exists(id);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "a program still loaded, or free's first bytes not back as they were";
  const std::string events = slurp("/sys/kernel/tracing/uprobe_events");
  EXPECT_EQ(events.find("libbpf_" + std::to_string(h) + "_"), std::string::npos) << events;
  EXPECT_FALSE(std::filesystem::exists(out));
  // The target runs its rounds unharmed after.
  ASSERT_EQ(write(t->stdin_fd(), "go\n", 3), 3);
  auto done = t->read_line(120s);
  EXPECT_TRUE(done && done->starts_with("done ")) << (done ? *done : "no line");
}

}  // namespace
