#include "render/profile/eu_stack_text.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {
namespace eu_stack_text_test {

// eu-stack 0.188's `eu-stack -p 100`: two threads, one frame without a symbol, versioned symbols.
constexpr std::string_view kPlain =
    "PID 100 - process\n"
    "TID 100:\n"
    "#0  0x00007f4cabd37503 clock_nanosleep@GLIBC_2.2.5\n"
    "#1  0x00007f4cabd3be53 __nanosleep\n"
    "#2  0x000055bedf54c4af\n"
    "#3  0x00007f4cabc8f305 __libc_start_main@@GLIBC_2.34\n"
    "TID 101:\n"
    "#0  0x00007f0000001000 __futex_abstimed_wait_common\n"
    "#1  0x0000555500001000 pool::take(std::unique_lock<std::mutex>&, int)\n"
    "#2  0x00007f0000004000 start_thread\n"
    "#3  0x00007f0000005000 __clone3\n";

// The same process with -s -i -m (source lines under frames, an inlined frame, modules) and -a.
constexpr std::string_view kVerbose =
    "PID 100 - process\n"
    "TID 100:\n"
    "#0  0x00007f4cabd37503     __GI___clock_nanosleep - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "    ../sysdeps/unix/sysv/linux/clock_nanosleep.c:71:10\n"
    "#1  0x00007f4cabd3be53 - 1 __GI___nanosleep - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "    ../sysdeps/unix/sysv/linux/nanosleep.c:25:13\n"
    "#2  0x000055bedf54c4af - 1 - /usr/bin/sleep\n"
    "#3  0x000055bedf54c4af - 1 inlined_helper - /usr/bin/sleep\n"
    "    src/sleep.c:12:3\n"
    "#4  0x00007f4cabc8f305 - 1 __libc_start_main_impl - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "    ../csu/libc-start.c:360:3\n";

std::vector<std::string> fold(std::string_view text) {
  std::vector<std::string> lines;
  EuStackFolder folder([&](std::string_view l) { lines.emplace_back(l); });
  while (!text.empty()) {
    size_t nl = text.find('\n');
    folder.add_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  folder.finish();
  return lines;
}

TEST(EuStackText, EachThreadBlockIsOneStackRootedAtTheThreadOutermostFirst) {
  std::vector<std::string> lines = fold(kPlain);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "[unnamed tid=100];__libc_start_main;[unknown];__nanosleep;clock_nanosleep 1");
  EXPECT_EQ(lines[1],
            "[unnamed tid=101];__clone3;start_thread;pool::take(std::unique_lock<std::mutex>&, "
            "int);__futex_abstimed_wait_common 1");
}

TEST(EuStackText, SourceModuleActivationAndInlineLinesGiveTheSameKindOfStack) {
  std::vector<std::string> lines = fold(kVerbose);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "[unnamed tid=100];__libc_start_main_impl;inlined_helper;[sleep];__GI___nanosleep;"
            "__GI___clock_nanosleep 1");
}

TEST(EuStackText, FrameNames) {
  EXPECT_EQ(eu_stack_frame_name("#0  0x00007f4cabd37503 clock_nanosleep@GLIBC_2.2.5"),
            "clock_nanosleep");
  EXPECT_EQ(eu_stack_frame_name("#12 0x0000000000401000 main"), "main");
  EXPECT_EQ(eu_stack_frame_name("#2  0x000055bedf54c4af"), "[unknown]");
  EXPECT_EQ(eu_stack_frame_name("#2  0x000055bedf54c4af - 1"), "[unknown]");
  EXPECT_EQ(eu_stack_frame_name("#2  0x000055bedf54c4af - /usr/lib/libz.so.1"), "[libz.so.1]");
  EXPECT_EQ(eu_stack_frame_name("#2  0x1 ns::f(int, char*) const - /usr/bin/app"),
            "ns::f(int, char*) const");
  EXPECT_EQ(eu_stack_frame_name("#0  0x1 weird;name"), "weird:name");
  // '@' that is not a symbol version stays.
  EXPECT_EQ(eu_stack_frame_name("#0  0x1 f(std::function<void (int@x)>)"),
            "f(std::function<void (int@x)>)");
}

TEST(EuStackText, HeadersAndFrames) {
  EXPECT_TRUE(is_eu_stack_process_header("PID 4242 - process"));
  EXPECT_TRUE(is_eu_stack_process_header("PID 4242 - core"));
  EXPECT_FALSE(is_eu_stack_process_header("PID 4242"));
  EXPECT_TRUE(is_eu_stack_thread_header("TID 4243:"));
  EXPECT_FALSE(is_eu_stack_thread_header("TID x:"));
  EXPECT_FALSE(is_eu_stack_thread_header("TID 4243: more"));
  EXPECT_TRUE(is_eu_stack_frame("#0  0x00007f4cabd37503 clock_nanosleep"));
  EXPECT_TRUE(is_eu_stack_frame("#2  0x000055bedf54c4af"));
  EXPECT_TRUE(is_eu_stack_frame("#10 0x000055bedf54c4af - 1"));
  EXPECT_FALSE(is_eu_stack_frame("#0  f (a=1) at f.c:3"));  // gdb's, without an address
  EXPECT_FALSE(is_eu_stack_frame("#0  0x"));
  EXPECT_FALSE(is_eu_stack_frame("    ../csu/libc-start.c:360:3"));
}

TEST(EuStackText, ConcatenatedSnapshotsAndOtherLines) {
  std::string text = std::string(kPlain) + "eu-stack: dwfl_thread_getframes tid 102: No such\n" +
                     "#0  0x1 orphan\n" + std::string(kPlain);
  std::vector<std::string> lines = fold(text);
  ASSERT_EQ(lines.size(), 4u);  // the orphan frame after a message is no thread's
  EXPECT_EQ(lines[0], lines[2]);
  EXPECT_EQ(lines[1], lines[3]);
}

TEST(EuStackText, ALeafEndingInANumberIsNotReadAsASecondCount) {
  const std::string text = "TID 7:\n#0  0x1 f 2\n#1  0x2 main\n";
  std::vector<std::string> lines = fold(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[unnamed tid=7];main;f_2 1");
  FrameTree tree;
  FoldedReader reader(tree, {});
  reader.read_text(text);
  tree.finalize();
  EXPECT_FALSE(tree.differential());
  EXPECT_EQ(tree.total().value, 1);
}

TEST(EuStackText, TheReaderTellsItFromContentAndCountsEachThreadOnce) {
  FrameTree tree;
  FoldedReader reader(tree, {});
  reader.read_text(std::string(kPlain) + std::string(kPlain));
  tree.finalize();
  EXPECT_EQ(reader.eu_stack_threads(), 4u);
  EXPECT_EQ(reader.gdb_threads(), 0u);
  EXPECT_EQ(reader.stats().ignored, 0u);
  EXPECT_EQ(tree.total().value, 4);

  // Forced, with a line of something else first (not counted as an ignored folded line).
  FrameTree forced;
  FoldedReader forced_reader(forced, {.format = InputFormat::kEuStack});
  forced_reader.read_text("+ eu-stack -p 100\n" + std::string(kPlain));
  forced.finalize();
  EXPECT_EQ(forced_reader.eu_stack_threads(), 2u);
  EXPECT_EQ(forced.total().value, 2);
}

}  // namespace eu_stack_text_test
}  // namespace hearth::profile
