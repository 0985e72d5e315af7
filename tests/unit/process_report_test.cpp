// A report of several processes (hearth record --children / several -p / --comm): the process
// roots the stack sampler writes (collectors/stacks/roots.h) read back into threads grouped by
// process (render/report/sampled_threads.h), the names the scheduler charts give them, and the
// threads table's process column. A report of one process stays as it was (report_test.cpp's
// golden file).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/stacks/roots.h"
#include "formats/folded.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"
#include "render/report/collector_text.h"
#include "render/report/report.h"
#include "render/report/sampled_threads.h"
#include "tests/unit/temp_dir.h"

namespace hearth::report {
namespace {

using stacks::AggregateOptions;
using stacks::RootParts;
using stacks::sample_root;

std::vector<SampledThread> threads_of(const std::string& folded) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {});
  reader.read_text(folded);
  tree.finalize();
  return sampled_threads(tree);
}

const SampledThread* find_tid(const std::vector<SampledThread>& ts, int64_t tid) {
  auto it = std::find_if(ts.begin(), ts.end(), [tid](const auto& t) { return t.tid == tid; });
  return it == ts.end() ? nullptr : &*it;
}

TEST(ProcessRoot, ParsesOnlyProcessRoots) {
  auto p = formats::parse_process_root("[postgres pid=26032]");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "postgres");
  EXPECT_EQ(p->pid, 26032);
  auto spaced = formats::parse_process_root("[my app pid=7]");
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->name, "my app");
  EXPECT_FALSE(formats::parse_process_root("[worker tid=12]"));
  EXPECT_FALSE(formats::parse_process_root("[postgres]"));  // merged by name: no pid to group by
  EXPECT_FALSE(formats::parse_process_root("[postgres pid=12x]"));
  EXPECT_FALSE(formats::parse_process_root("main"));
  EXPECT_FALSE(formats::parse_process_root("[postgres: bench UPDATE waiting]"));
}

// The writer's roots, every shape (single- and multi-threaded, with and without title frames),
// read back into each thread under its process.
TEST(SampledThreads, WriterRootsReadBackUnderTheirProcess) {
  for (bool titles : {false, true}) {
    AggregateOptions o{.process_roots = true, .title_frames = titles};
    RootParts backend{.process = "postgres",
                      .pid = 100,
                      .title = "postgres: bench UPDATE waiting",
                      .thread = "postgres",
                      .tid = 100,
                      .multi_threaded = false};
    RootParts java_main{.process = "java",
                        .pid = 200,
                        .title = "java -jar app.jar",
                        .thread = "java",
                        .tid = 200,
                        .multi_threaded = true};
    RootParts java_worker = java_main;
    java_worker.thread = "worker-0";
    java_worker.tid = 201;
    std::string folded = sample_root(backend, o) + ";main;ProcSleep 3\n" + sample_root(backend, o) +
                         ";main;LWLockAcquire 2\n" + sample_root(java_main, o) +
                         ";main;pthread_join 4\n" + sample_root(java_worker, o) + ";run;work 6\n";
    std::vector<SampledThread> ts = threads_of(folded);
    ASSERT_EQ(ts.size(), 3u) << folded;
    const SampledThread* b = find_tid(ts, 100);
    ASSERT_TRUE(b) << folded;
    EXPECT_EQ(b->name, "postgres");
    EXPECT_EQ(b->process, "postgres");
    EXPECT_EQ(b->pid, 100);
    EXPECT_EQ(b->samples, 5);
    EXPECT_EQ(b->root, "[postgres pid=100]");  // the flamegraph's search finds it
    const SampledThread* m = find_tid(ts, 200);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->name, "java");
    EXPECT_EQ(m->pid, 200);
    EXPECT_EQ(m->samples, 4);
    EXPECT_EQ(m->root, "[java tid=200]");
    const SampledThread* w = find_tid(ts, 201);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->name, "worker-0");
    EXPECT_EQ(w->process, "java");
    EXPECT_EQ(w->pid, 200);
    EXPECT_EQ(w->samples, 6);
    // The charts' names say the process of a thread of a multi-threaded process.
    EXPECT_EQ(chart_name(*b), "postgres");
    EXPECT_EQ(chart_name(*m), "java 200: java");
    EXPECT_EQ(chart_name(*w), "java 200: worker-0");
  }
}

TEST(SampledThreads, OneProcessIsAsBefore) {
  std::vector<SampledThread> ts =
      threads_of("[app tid=10];main;poll 3\n[worker-1 tid=11];run 2\n[pool-*];run 1\n");
  ASSERT_EQ(ts.size(), 3u);
  for (const SampledThread& t : ts) {
    EXPECT_EQ(t.pid, -1) << t.name;
    EXPECT_TRUE(t.process.empty()) << t.name;
    EXPECT_EQ(chart_name(t), t.name);
  }
  EXPECT_EQ(ts[0].name, "app");
  EXPECT_EQ(ts[0].tid, 10);
  EXPECT_EQ(ts[2].name, "pool-*");
  EXPECT_EQ(ts[2].tid, -1);
}

// The threads table of a set: a process column, every thread of a process together.
TEST(SampledThreads, ThreadsTableGroupsByProcess) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::ofstream(dir / "stacks.folded") << "[app pid=300];[app tid=300];main;poll 5\n"
                                          "[solo pid=200];main;read 7\n"
                                          "[app pid=300];[worker tid=301];run 9\n";
  std::ofstream(dir / "report.json")
      << R"({"format": "hearth report 1", "target": {"pid": 300, "comm": "app", "cmdline": "app",
            "processes": [{"pid": 300}, {"pid": 200}]}})";
  auto r = render_report({.dir = dir.path()});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->threads, 3u);
  std::ifstream in(dir / "index.html");
  std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<th>process</th><th>thread</th>"), std::string::npos);
  EXPECT_NE(html.find("hearth report: app (pid 300) and 1 other process"), std::string::npos);
  // By samples (no scheduler recording): app (14) before solo (7); app's threads together.
  const size_t worker = html.find("<td>app 300</td><td><a href=\"flame.svg?s=%5C%5Bworker");
  const size_t main = html.find("<td>app 300</td><td><a href=\"flame.svg?s=%5C%5Bapp%20tid");
  const size_t solo = html.find("<td>solo 200</td><td><a href=\"flame.svg?s=%5C%5Bsolo%20pid");
  ASSERT_NE(worker, std::string::npos) << html;
  ASSERT_NE(main, std::string::npos);
  ASSERT_NE(solo, std::string::npos);
  EXPECT_LT(worker, main);
  EXPECT_LT(main, solo);
  // The charts' names (hearth chart DIR) say the process.
  auto names = sampled_thread_names(dir.path());
  EXPECT_EQ(names[301], "app 300: worker");
  EXPECT_EQ(names[200], "solo");
}

// The stacks collector's figures of a set, in words: the processes counted, stalls per process.
TEST(SampledThreads, CollectorTextCountsTheProcesses) {
  nlohmann::json set = {{"status", "ok"},        {"samples", 18},         {"frequency_hz", 10},
                        {"threads", 7},          {"stacks", 126},         {"processes", 5},
                        {"processes_joined", 1}, {"processes_exited", 0}, {"stall_median_ms", 0.1}};
  const std::string text = collector_text("stacks", set);
  EXPECT_EQ(
      text.rfind("5 processes (1 joined, 0 exited during the window): 18 samples at 10 Hz", 0), 0u)
      << text;
  EXPECT_NE(text.find("Each process's stall per sample: median 0.100 ms"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("processes_joined"), std::string::npos) << text;  // said, not listed
  set.erase("processes");
  set.erase("processes_joined");
  set.erase("processes_exited");
  EXPECT_EQ(collector_text("stacks", set).rfind("18 samples at 10 Hz", 0), 0u);
}

}  // namespace
}  // namespace hearth::report
