#include "render/profile/perf_script.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {
namespace {

// perf 6.1's `perf script` of a `perf record -g`: a user stack with an unnamed frame in a
// library and a C++ name with its argument list, a kernel stack, an unnamed frame in an unknown
// DSO, an inline chain, a JIT frame; then a sample of another event.
constexpr std::string_view kPerfText =
    "# ========\n"
    "# captured on    : Mon Dec  7 15:20:22 2026\n"
    "# ========\n"
    "#\n"
    "spin-0 25765 13264.915607:    2004008 cpu-clock:pppH: \n"
    "\t            4702 leaf_spin+0x2f (/t/stack_target-fp)\n"
    "\t            4f2d (anonymous namespace)::worker_main+0x48 (/t/stack_target-fp)\n"
    "\t            8ced std::__invoke<void (*)(int), int>+0x6c (/t/stack_target-fp)\n"
    "\t           d44a3 [unknown] (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\n"
    "\n"
    "my server 100/101 [001] 13264.925046:    2004008 cpu-clock:pppH: \n"
    "\tffffffff813aecd3 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])\n"
    "\tffffffff81c3a0b1 schedule+0x51 ([kernel.kallsyms])\n"
    "\t            1234 [unknown] ([unknown])\n"
    "\t            5678 outer->inner+0x10 (/t/app)\n"
    "\t    7f0000001000 Interpreter+0x20 (/tmp/perf-100.map)\n"
    "\n"
    "my server 100/101 [001] 13264.930000: sched:sched_switch: prev_comm=x prev_pid=1\n"
    "\tffffffff81c3a0b1 schedule+0x51 ([kernel.kallsyms])\n"
    "\n";

struct PerfFolded {
  std::string line;
  int64_t time_ns;
};

std::vector<PerfFolded> fold_perf(std::string_view text) {
  std::vector<PerfFolded> lines;
  PerfScriptFolder folder([&](std::string_view l, int64_t t) {
    lines.push_back({std::string(l), t});
  });
  while (!text.empty()) {
    size_t nl = text.find('\n');
    folder.add_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  folder.finish();
  return lines;
}

// Also its quirks: a symbol that starts with '(' is dropped (it takes them for process names), so
// "(anonymous namespace)::worker_main" is not a frame; "std::__invoke<void (*)(int), int>" is cut
// at its first '('.
TEST(PerfScript, FoldsSamplesAsStackcollapsePerfDoes) {
  std::vector<PerfFolded> lines = fold_perf(kPerfText);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line,
            "[spin-0 tid=25765];[libstdc++.so.6.0.30];std::__invoke<void ;leaf_spin 2004008");
  EXPECT_EQ(lines[0].time_ns, 13264915607000);
  EXPECT_EQ(lines[1].line,
            "[my server tid=101];Interpreter_[j];outer;inner_[i];[unknown];schedule_[k];"
            "finish_task_switch.isra.0_[k] 2004008");
  EXPECT_EQ(lines[1].time_ns, 13264925046000);
}

TEST(PerfScript, DrawsTheFirstEventAndCountsTheOthers) {
  std::vector<PerfFolded> lines;
  PerfScriptFolder folder([&](std::string_view l, int64_t t) {
    lines.push_back({std::string(l), t});
  });
  std::string_view text = kPerfText;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    EXPECT_TRUE(folder.add_line(text.substr(0, nl))) << text.substr(0, nl);
    text.remove_prefix(nl + 1);
  }
  folder.finish();
  EXPECT_EQ(folder.samples(), 2u);
  EXPECT_EQ(folder.event(), "cpu-clock:pppH");
  EXPECT_EQ(folder.other_event_samples(), 1u);
  EXPECT_EQ(folder.other_event(), "sched:sched_switch");
}

TEST(PerfScript, ParsesHeaders) {
  PerfSampleHeader h;
  ASSERT_TRUE(parse_perf_sample_header("perf 12 [000] 1.5: 7 cycles: ", &h));
  EXPECT_EQ(h.comm, "perf");
  EXPECT_EQ(h.pid, -1);
  EXPECT_EQ(h.tid, 12);
  EXPECT_EQ(h.time_ns, 1'500'000'000);
  EXPECT_EQ(h.period, 7u);
  EXPECT_EQ(h.event, "cycles");
  // No period, no CPU; a tracepoint with its payload.
  ASSERT_TRUE(parse_perf_sample_header("a b 3/4 2.000000001: sched:sched_wakeup: comm=x", &h));
  EXPECT_EQ(h.comm, "a b");
  EXPECT_EQ(h.pid, 3);
  EXPECT_EQ(h.tid, 4);
  EXPECT_EQ(h.time_ns, 2'000'000'001);
  EXPECT_EQ(h.period, 0u);
  EXPECT_EQ(h.event, "sched:sched_wakeup");
  // `perf script -F comm,tid,ip,sym,dso`: no time, no event.
  ASSERT_TRUE(parse_perf_sample_header("worker 42 ", &h));
  EXPECT_EQ(h.time_ns, -1);
  EXPECT_EQ(h.event, "");
  EXPECT_FALSE(looks_like_perf_script("worker 42 "));
  EXPECT_TRUE(looks_like_perf_script("spin-0 25765 13264.915607:    2004008 cpu-clock:pppH: "));
  // PerfFolded lines are not headers.
  EXPECT_FALSE(parse_perf_sample_header("main;f;g 12", &h));
  EXPECT_FALSE(looks_like_perf_script("[w 1 tid=2];f 3"));
  EXPECT_FALSE(parse_perf_sample_header("\t 1234 f (dso)", &h));
}

TEST(PerfScript, CountsLinesItDoesNotKnowAndDropsTheirSample) {
  PerfScriptFolder folder([](std::string_view, int64_t) {});
  EXPECT_FALSE(folder.add_line("%%% not perf %%%"));
  EXPECT_FALSE(folder.add_line("\t no frame here"));
  EXPECT_TRUE(folder.add_line("\t 1234 f (dso)"));  // a frame without a header: dropped
  folder.finish();
  EXPECT_EQ(folder.samples(), 0u);
}

TEST(PerfScript, ReaderDetectsItAndSkipsTheHeaderComments) {
  FrameTree tree;
  FoldedReader reader(tree, {});
  reader.read_text(kPerfText);
  tree.finalize();
  EXPECT_EQ(reader.stats().lines, 2u);
  EXPECT_EQ(reader.stats().ignored, 0u);
  EXPECT_EQ(reader.perf_script().samples, 2u);
  EXPECT_EQ(reader.perf_script().other_samples, 1u);
  EXPECT_EQ(tree.total().value, 2 * 2004008.0);

  // Forced: the same; forced folded: nothing.
  FrameTree forced;
  FoldedReader forced_reader(forced, {.format = InputFormat::kPerfScript});
  forced_reader.read_text(kPerfText);
  forced.finalize();
  EXPECT_EQ(forced_reader.stats().lines, 2u);
  FrameTree folded;
  FoldedReader folded_reader(folded, {.format = InputFormat::kFolded});
  folded_reader.read_text(kPerfText);
  EXPECT_EQ(folded_reader.stats().lines, 1u);  // "# captured on … 2026": a stack counted 2026
  EXPECT_EQ(folded_reader.perf_script().samples, 0u);
}

TEST(PerfScript, ReaderCountsUnknownLinesAsIgnored) {
  FrameTree tree;
  FoldedReader reader(tree, {.format = InputFormat::kPerfScript});
  reader.read_text("junk\x01\x02\nspin 1 1.0: 1 cpu-clock: \n\t 1 f+0x1 (a)\n???\n");
  tree.finalize();
  EXPECT_EQ(reader.stats().lines, 1u);  // "???" ends the sample before it, as a header would
  EXPECT_EQ(reader.stats().ignored, 2u);
  EXPECT_EQ(reader.stats().first_ignored_line, 1u);
}

}  // namespace
}  // namespace hearth::profile
