#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "collectors/proc/maps.h"
#include "collectors/proc/threads.h"

namespace hearth::proc {
namespace {

TEST(ProcMaps, ParsesEveryKindOfLine) {
  const char* text =
      "55d0c6a00000-55d0c6a02000 r--p 00000000 fd:01 1311779                    /usr/bin/cat\n"
      "55d0c6a02000-55d0c6a07000 r-xp 00002000 fd:01 1311779                    /usr/bin/cat\n"
      "55d0c7e1c000-55d0c7e3d000 rw-p 00000000 00:00 0                          [heap]\n"
      "7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n"
      "7f1c2b000000-7f1c2b100000 r-xs 00001000 00:05 42   /tmp/my lib (v2).so (deleted)\n"
      "7f1c2c000000-7f1c2c001000 ---p 00000000 00:00 0\n"
      "7ffd4a1e0000-7ffd4a201000 rw-p 00000000 00:00 0                          [stack]\n"
      "7ffd4a3f6000-7ffd4a3fa000 r--p 00000000 00:00 0                          [vvar]\n"
      "7ffd4a3fa000-7ffd4a3fc000 r-xp 00000000 00:00 0                          [vdso]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";
  std::vector<Mapping> maps = parse_maps(text);
  ASSERT_EQ(maps.size(), 10u);

  EXPECT_EQ(maps[0].start, 0x55d0c6a00000u);
  EXPECT_EQ(maps[0].end, 0x55d0c6a02000u);
  EXPECT_TRUE(maps[0].read);
  EXPECT_FALSE(maps[0].exec);
  EXPECT_EQ(maps[0].path, "/usr/bin/cat");
  EXPECT_EQ(maps[0].dev, "fd:01");
  EXPECT_EQ(maps[0].inode, 1311779u);

  EXPECT_TRUE(maps[1].exec);
  EXPECT_FALSE(maps[1].write);
  EXPECT_EQ(maps[1].offset, 0x2000u);

  EXPECT_EQ(maps[2].path, "[heap]");
  EXPECT_TRUE(maps[2].write);

  EXPECT_EQ(maps[3].path, "");  // anonymous, trailing blank
  EXPECT_EQ(maps[3].inode, 0u);

  EXPECT_EQ(maps[4].path, "/tmp/my lib (v2).so");  // spaces and parentheses kept
  EXPECT_TRUE(maps[4].deleted);
  EXPECT_TRUE(maps[4].shared);
  EXPECT_EQ(maps[4].offset, 0x1000u);

  EXPECT_EQ(maps[5].path, "");  // anonymous, no trailing blank
  EXPECT_FALSE(maps[5].read);

  EXPECT_EQ(maps[6].path, "[stack]");
  EXPECT_EQ(maps[8].path, "[vdso]");
  EXPECT_TRUE(maps[8].exec);
  EXPECT_FALSE(maps[8].deleted);
  EXPECT_EQ(maps[9].start, 0xffffffffff600000u);
}

TEST(ProcMaps, SkipsMalformedLines) {
  std::vector<Mapping> maps = parse_maps(
      "garbage\n"
      "\n"
      "1000-2000 r-xp 00000000 fd:01 7 /lib/a.so\n"
      "zz00-2000 r-xp 00000000 fd:01 7 /lib/b.so\n"
      "1000-2000 r-x\n"
      "3000-4000 r-xp 00000000 fd:01 8 /lib/c.so");  // no final newline
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].path, "/lib/a.so");
  EXPECT_EQ(maps[1].path, "/lib/c.so");
  EXPECT_TRUE(parse_maps("").empty());
}

TEST(ProcMaps, ReadsOwnMapsAndFingerprintIsStable) {
  auto maps = read_maps(getpid());
  ASSERT_TRUE(maps) << maps.error().message;
  auto code = reinterpret_cast<uint64_t>(&parse_maps);
  bool found = std::any_of(maps->begin(), maps->end(), [&](const Mapping& m) {
    return m.exec && m.start <= code && code < m.end;
  });
  EXPECT_TRUE(found) << "no executable mapping holds parse_maps";
  EXPECT_TRUE(std::any_of(maps->begin(), maps->end(),
                          [](const Mapping& m) { return m.path == "[stack]"; }));

  auto a = maps_fingerprint(getpid());
  auto b = maps_fingerprint(getpid());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  // A new mapping changes it.
  void* p = ::mmap(nullptr, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto c = maps_fingerprint(getpid());
  ::munmap(p, 1 << 20);
  ASSERT_TRUE(c);
  EXPECT_NE(*a, *c);
  EXPECT_FALSE(maps_fingerprint(0));
}

TEST(ProcThreads, ParsesStatWithHostileComm) {
  // comm "a) b (c" : the parser must count fields from the LAST ')'.
  std::string line =
      "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 200 0 0 0 10 5 0 0 20 0 3 0 123456 10000000 "
      "500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  auto stat = parse_thread_stat(line);
  ASSERT_TRUE(stat) << stat.error().message;
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->start_time_ticks, 123456u);
  EXPECT_EQ(stat->processor, 1);

  auto traced = parse_thread_stat("7 ()) t 3 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0");
  ASSERT_TRUE(traced) << traced.error().message;
  EXPECT_EQ(traced->state, 't');
  EXPECT_EQ(traced->start_time_ticks, 99u);
  EXPECT_EQ(traced->processor, -1);  // line too short to hold it

  EXPECT_FALSE(parse_thread_stat("4242 (no close paren S 1"));
  EXPECT_FALSE(parse_thread_stat("4242 (x) S 1 2 3"));
  EXPECT_FALSE(parse_thread_stat("4242 (x) S one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"));
  EXPECT_FALSE(parse_thread_stat(""));
}

TEST(ProcThreads, ParsesTracerPid) {
  EXPECT_EQ(parse_tracer_pid("Name:\tcat\nState:\tS (sleeping)\nTracerPid:\t77\nUid:\t0\n"), 77);
  EXPECT_EQ(parse_tracer_pid("TracerPid:\t0\n"), 0);
  EXPECT_FALSE(parse_tracer_pid("Name:\tcat\n"));
  EXPECT_FALSE(parse_tracer_pid("TracerPid:\tx\n"));
}

TEST(ProcThreads, ParsesKernelStacks) {
  std::vector<std::string> frames = parse_kernel_stack(
      "[<0>] futex_wait_queue+0x60/0x90\n"
      "[<0>] __futex_wait+0x8e/0x100\n"
      "[<ffffffff81234567>] ext4_file_read_iter+0x5a/0x1a0 [ext4]\n"
      "\n"
      "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n");
  EXPECT_EQ(frames,
            (std::vector<std::string>{"futex_wait_queue", "__futex_wait", "ext4_file_read_iter",
                                      "entry_SYSCALL_64_after_hwframe"}));
  EXPECT_TRUE(parse_kernel_stack("").empty());
  EXPECT_EQ(parse_kernel_stack("do_syscall_64"), std::vector<std::string>{"do_syscall_64"});
}

TEST(ProcThreads, ListsAndNamesOwnThreads) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread t([&] {
    pthread_setname_np(pthread_self(), "proc-test-x");
    tid = gettid();
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (tid == 0) std::this_thread::yield();
  // The name is set before tid is published.
  auto threads = list_threads(getpid());
  ASSERT_TRUE(threads) << threads.error().message;
  EXPECT_TRUE(std::is_sorted(threads->begin(), threads->end()));
  EXPECT_NE(std::find(threads->begin(), threads->end(), getpid()), threads->end());
  EXPECT_NE(std::find(threads->begin(), threads->end(), tid.load()), threads->end());
  EXPECT_EQ(thread_name(getpid(), tid).value_or("?"), "proc-test-x");

  auto stat = thread_stat(getpid(), tid);
  ASSERT_TRUE(stat) << stat.error().message;
  EXPECT_NE(std::string("RS").find(stat->state), std::string::npos);
  EXPECT_EQ(stat->ppid, getppid());
  auto start = process_start_time(getpid());
  ASSERT_TRUE(start);
  EXPECT_LE(*start, stat->start_time_ticks);
  EXPECT_EQ(tracer_pid(getpid(), tid).value_or(-1), 0);
  if (geteuid() == 0) {  // the stack file is root-only
    auto kstack = kernel_stack(getpid(), tid);
    EXPECT_TRUE(kstack) << kstack.error().message;
  }
  stop = true;
  t.join();

  auto missing = list_threads(0x3fffffff);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().errnum, ENOENT);
  EXPECT_FALSE(thread_name(getpid(), 0x3fffffff));
}

}  // namespace
}  // namespace hearth::proc
