#include "render/profile/gdb_text.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {
namespace {

// gdb 13's `thread apply all bt` after `gdb -p`: its preamble, the attach frame and its source
// line, then two threads, one with inlined frames (no address), one with a frame gdb can't name.
constexpr std::string_view kSnapshot =
    "[New LWP 101]\n"
    "[Thread debugging using libthread_db enabled]\n"
    "Using host libthread_db library \"/lib/x86_64-linux-gnu/libthread_db.so.1\".\n"
    "0x00007f0000001000 in __GI___poll (fds=0x1, nfds=2, timeout=-1) at ../poll.c:29\n"
    "29\t../sysdeps/unix/sysv/linux/poll.c: No such file or directory.\n"
    "\n"
    "Thread 2 (Thread 0x7f00000a (LWP 101) \"worker-1\"):\n"
    "#0  __futex_abstimed_wait_common64 (private=0, cancel=true) at ./nptl/futex-internal.c:57\n"
    "#1  0x00007f0000002000 in ___pthread_cond_wait (cond=0x1, mutex=0x2) at cond.c:618\n"
    "#2  0x0000555500001000 in pool::take(std::unique_lock<std::mutex>&, int) ()\n"
    "#3  0x00007f0000003000 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6\n"
    "#4  0x00007f0000004000 in start_thread (arg=<optimized out>) at pthread_create.c:442\n"
    "#5  0x00007f0000005000 in clone3 () at clone3.S:81\n"
    "\n"
    "Thread 1 (Thread 0x7f000001 (LWP 100) \"server\"):\n"
    "#0  0x00007f0000001000 in __GI___poll (fds=0x1, nfds=2, timeout=-1) at ../poll.c:29\n"
    "#1  0x0000555500002000 in main (argc=1, argv=0x7ffc) at server.cc:12\n"
    "[Inferior 1 (process 100) detached]\n";

std::vector<std::string> fold(std::string_view text) {
  std::vector<std::string> lines;
  GdbTextFolder folder([&](std::string_view l) { lines.emplace_back(l); });
  while (!text.empty()) {
    size_t nl = text.find('\n');
    folder.add_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  folder.finish();
  return lines;
}

TEST(GdbText, EachThreadBlockIsOneStackRootedAtTheThreadOutermostFirst) {
  std::vector<std::string> lines = fold(kSnapshot);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "[worker-1 tid=101];clone3;start_thread;[libstdc++.so.6];"
            "pool::take(std::unique_lock<std::mutex>&, int);___pthread_cond_wait;"
            "__futex_abstimed_wait_common64 1");
  EXPECT_EQ(lines[1], "[server tid=100];main;__GI___poll 1");
}

TEST(GdbText, FrameNamesWithoutArgumentsAddressesOrFiles) {
  EXPECT_EQ(gdb_frame_name("#0  f (a=1) at f.c:3"), "f");
  EXPECT_EQ(gdb_frame_name("#12 0x00000000004004d6 in g () at g.c:9"), "g");
  EXPECT_EQ(gdb_frame_name("#1  0x1 in h () from /lib/libh.so"), "h");
  EXPECT_EQ(gdb_frame_name("#1  0x1 in ?? () from /usr/lib/libz.so.1"), "[libz.so.1]");
  EXPECT_EQ(gdb_frame_name("#1  0x1 in ?? ()"), "[unknown]");
  EXPECT_EQ(gdb_frame_name("#0  0x00007f0000001000"), "[unknown]");
  // A template argument with " (" inside <…> is part of the name.
  EXPECT_EQ(gdb_frame_name("#3  0x1 in std::thread::_Invoker<std::tuple<void (*)(int), int> "
                           ">::operator()() (this=0x1) at thread:253"),
            "std::thread::_Invoker<std::tuple<void (*)(int), int> >::operator()()");
  // ';' would split the frame in folded text.
  EXPECT_EQ(gdb_frame_name("#0  weird;name (x=1) at w.c:1"), "weird:name");
}

TEST(GdbText, ThreadHeadersInGdbsForms) {
  EXPECT_TRUE(is_gdb_thread_header("Thread 26 (Thread 0x77fa38cca6c0 (LWP 28083) \"mariadbd\"):"));
  EXPECT_TRUE(is_gdb_thread_header("Thread 1 (LWP 42 \"x\"):"));
  EXPECT_TRUE(is_gdb_thread_header("Thread 3 (Thread 0x7f (LWP 7)):"));
  EXPECT_FALSE(is_gdb_thread_header("Thread 3 was here"));
  EXPECT_FALSE(is_gdb_thread_header("[worker tid=1];main 3"));
  EXPECT_FALSE(is_gdb_frame("#include <x> 1"));
  EXPECT_TRUE(is_gdb_frame("#0  main () at m.c:1"));

  std::vector<std::string> lines = fold(
      "Thread 1 (LWP 42 \"x\"):\n#0  main () at m.c:1\n"
      "Thread 3 (Thread 0x7f (LWP 7)):\n#0  f ()\n"
      "Thread 4 (process 9):\n#0  g ()\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "[x tid=42];main 1");
  EXPECT_EQ(lines[1], "[unnamed tid=7];f 1");
  EXPECT_EQ(lines[2], "[unnamed tid=9];g 1");
}

TEST(GdbText, ConcatenatedSnapshotsAddUpInTheReader) {
  FrameTree tree;
  FoldedReader reader(tree, {});
  std::string three = std::string(kSnapshot) + std::string(kSnapshot) + std::string(kSnapshot);
  reader.read_text(three);
  tree.finalize();
  EXPECT_EQ(reader.gdb_threads(), 6u);
  EXPECT_EQ(reader.stats().lines, 6u);
  // gdb's preamble and its other lines are not folded lines that failed.
  EXPECT_EQ(reader.stats().ignored, 0u);
  EXPECT_EQ(tree.total().value, 6);
}

TEST(GdbText, FoldedInputIsReadAsBeforeAndTheFormatCanBeForced) {
  {
    FrameTree tree;
    FoldedReader reader(tree, {});
    reader.read_text("[w tid=1];main;f 3\n#0  not a frame of gdb here 1\n");
    tree.finalize();
    EXPECT_EQ(reader.gdb_threads(), 0u);
    EXPECT_EQ(reader.stats().lines, 2u);  // the second line is a folded line too
    EXPECT_EQ(tree.total().value, 4);
  }
  {
    FrameTree tree;
    FoldedReader reader(tree, {.format = InputFormat::kFolded});
    reader.read_text(kSnapshot);
    tree.finalize();
    EXPECT_EQ(reader.gdb_threads(), 0u);
    EXPECT_GT(reader.stats().ignored, 0u);
  }
  {
    FrameTree tree;
    FoldedReader reader(tree, {.format = InputFormat::kGdb});
    reader.read_text(kSnapshot);
    tree.finalize();
    EXPECT_EQ(reader.gdb_threads(), 2u);
    EXPECT_EQ(tree.total().value, 2);
  }
}

}  // namespace
}  // namespace hearth::profile
