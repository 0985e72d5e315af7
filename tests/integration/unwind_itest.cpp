// The unwinder and symbolizer on a real process: unwind_target (built with and without frame
// pointers) is stopped with plain ptrace, its registers and stack tops are copied, it is
// resumed, and only then are the stacks unwound and symbolized. Stacks must be complete, root
// to leaf, through libc, signal frames and the vDSO; stripped libc must never be mis-named.
// Timings are printed, not asserted.
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "collectors/proc/maps.h"
#include "collectors/proc/threads.h"
#include "collectors/stacks/remote_memory.h"
#include "collectors/stacks/symbolizer.h"
#include "collectors/stacks/unwinder.h"

namespace hearth::stacks {
namespace {

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// The target process: spawned with pipes on stdin/stdout, killed and reaped on destruction.
struct UnwindTarget {
  pid_t pid = -1;
  int in = -1;   // its stdin: closing it makes it exit
  int out = -1;  // its stdout: "ready PID"
  ~UnwindTarget() {
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

bool spawn_target(const std::string& path, UnwindTarget* t, std::vector<std::string> args = {}) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) return false;
  args.insert(args.begin(), path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  t->pid = fork();
  if (t->pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  t->in = to[1];
  t->out = from[0];
  std::string line;
  pollfd p{t->out, POLLIN, 0};
  while (line.find('\n') == std::string::npos && poll(&p, 1, 10000) == 1) {
    char buf[64];
    const ssize_t n = read(t->out, buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  if (line.rfind("ready ", 0) != 0) return false;
  // "ready" is written before the main thread blocks (read or poll of stdin): wait until it
  // is blocked in a syscall other than write (1), or a snapshot may find it still returning
  // from the write.
  const std::string syscall = "/proc/" + std::to_string(t->pid) + "/syscall";
  for (int i = 0; i < 5000; ++i) {
    char buf[32] = {};
    const int fd = open(syscall.c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    if (n > 1 && buf[0] >= '0' && buf[0] <= '9' && std::string_view(buf).rfind("1 ", 0) != 0)
      return true;
    usleep(1000);
  }
  return false;
}

struct ThreadSnap {
  pid_t tid = 0;
  std::string name;
  user_regs_struct regs{};
  StackCopy stack;
};

// Stops every thread (PTRACE_SEIZE + PTRACE_INTERRUPT, all first, then waits), reads registers
// and copies stack tops, then detaches: the minimal stop window. Prints the stall.
std::vector<ThreadSnap> snapshot(pid_t pid, RemoteMemory& memory, size_t stack_bytes) {
  std::vector<ThreadSnap> snaps;
  auto tids = proc::list_threads(pid);
  if (!tids) return snaps;
  std::vector<pid_t> seized;
  for (pid_t tid : *tids) {
    if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) == 0) seized.push_back(tid);
  }
  const auto t0 = Clock::now();
  for (pid_t tid : seized) ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
  double copy_us = 0;
  size_t copied = 0;
  for (pid_t tid : seized) {
    int status = 0;
    waitpid(tid, &status, __WALL);
    ThreadSnap s;
    s.tid = tid;
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &s.regs) != 0) continue;
    const auto c0 = Clock::now();
    if (!memory.copy_stack(s.regs.rsp, stack_bytes, s.stack)) continue;
    copy_us += us_since(c0);
    copied += s.stack.bytes.size();
    snaps.push_back(std::move(s));
  }
  for (pid_t tid : seized) ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
  const double stall = us_since(t0);
  std::printf(
      "  stop window: %zu threads, %.0f us (%.1f us/thread); stack copies %.1f us/thread"
      " (%zu bytes/thread)\n",
      seized.size(), stall, stall / static_cast<double>(seized.size()),
      copy_us / static_cast<double>(std::max<size_t>(snaps.size(), 1)),
      copied / std::max<size_t>(snaps.size(), 1));
  for (ThreadSnap& s : snaps) s.name = proc::thread_name(pid, s.tid).value_or("?");
  return snaps;
}

struct NamedFrame {
  std::string name;
  bool inlined;
  uint64_t addr;  // the address looked up (ip, or ip - 1 for return addresses)
};

// Root first, as a folded stack reads.
std::vector<NamedFrame> symbolize(Symbolizer& sym, const std::vector<uint64_t>& ips,
                                  const UnwindStatus& status) {
  std::vector<NamedFrame> out;
  for (size_t i = ips.size(); i-- > 0;) {
    const bool ret = is_return_address(status, i);
    if (i + 1 < ips.size() && is_return_address(status, i + 1)) {
      for (const Frame& f : sym.tail_calls(ips[i + 1], ips[i], ret))
        out.push_back({f.name, f.inlined, ret ? ips[i] - 1 : ips[i]});
    }
    for (const Frame& f : sym.symbolize(ips[i], ret)) {
      out.push_back({f.name, f.inlined, ret ? ips[i] - 1 : ips[i]});
    }
  }
  return out;
}

std::string joined(const std::vector<NamedFrame>& frames) {
  std::string s;
  for (const NamedFrame& f : frames)
    s += (s.empty() ? "" : ";") + f.name + (f.inlined ? "_[i]" : "");
  return s;
}

// Whether `pattern` matches `name`: alternatives separated by '|', each exact, or a prefix
// when it ends with '*'.
bool matches(const std::string& name, const std::string& pattern) {
  size_t begin = 0;
  while (begin <= pattern.size()) {
    size_t end = pattern.find('|', begin);
    if (end == std::string::npos) end = pattern.size();
    std::string alt = pattern.substr(begin, end - begin);
    if (!alt.empty() && alt.back() == '*' ? name.rfind(alt.substr(0, alt.size() - 1), 0) == 0
                                          : name == alt) {
      return true;
    }
    begin = end + 1;
  }
  return false;
}

// `expected` appears in `frames` in order (other frames may sit between, e.g. inlined libc
// helpers). Returns the index after the last match, or -1.
int find_in_order(const std::vector<NamedFrame>& frames, const std::vector<std::string>& expected) {
  size_t at = 0;
  for (const std::string& e : expected) {
    while (at < frames.size() && !matches(frames[at].name, e)) ++at;
    if (at == frames.size()) return -1;
    ++at;
  }
  return static_cast<int>(at);
}

struct Expectation {
  std::vector<std::string> frames;  // root first; the first one must be the root frame
  std::string leaf;                 // the last frame must match this
};

// Expected stacks with libc debug info (libc6-dbg); names without parameter lists.
std::map<std::string, Expectation> expectations() {
  const std::string root = "clone3|__clone3", thread = "start_thread";
  return {
      {"u-spin",
       {{root, thread, "ut::spin_thread", "ut::spin_0", "ut::spin_1", "ut::spin_2", "ut::spin_3",
         "ut::leaf_spin", "ut::spin_inner", "ut::spin_innermost"},
        "ut::spin_innermost"}},
      {"u-mutex",
       {{root, thread, "ut::mutex_thread", "ut::mutex_0", "ut::mutex_1", "ut::mutex_2",
         "ut::leaf_mutex", "pthread_mutex_lock|__pthread_mutex_lock|___pthread_mutex_lock",
         "__lll_lock_wait"},
        "*"}},
      {"u-cond",
       {{root, thread, "ut::cond_thread", "ut::cond_0", "ut::cond_1", "ut::cond_2", "ut::leaf_cond",
         "pthread_cond_wait|___pthread_cond_wait|__pthread_cond_wait",
         // Tail-called (`jmp`): no frame of its own on the stack; put back from DWARF call sites.
         "__futex_abstimed_wait_cancelable64", "__futex_abstimed_wait_common"},
        "*"}},
      {"u-read",
       {{root, thread, "ut::read_thread", "ut::read_0", "ut::read_1", "ut::leaf_read",
         "read|__libc_read|__GI___libc_read"},
        "*"}},
      {"u-epoll",
       {{root, thread, "ut::epoll_thread", "ut::epoll_0", "ut::leaf_epoll",
         "epoll_wait|__GI_epoll_wait"},
        "*"}},
      {"u-signal",
       {{root, thread, "ut::signal_thread", "ut::signal_0", "ut::signal_1", "ut::leaf_signal_spin",
         "__restore_rt", "ut::on_signal", "ut::handler_0", "ut::handler_leaf",
         "*nanosleep*|nanosleep|__nanosleep|__clock_nanosleep"},
        "*"}},
      {"u-vdso",
       {{root, thread, "ut::vdso_thread", "ut::vdso_0", "ut::vdso_1", "ut::leaf_vdso"}, "*"}},
      {"u-nocfi",
       {{root, thread, "ut::nocfi_thread", "ut::nocfi_0", "ut_nocfi_trampoline", "ut_nocfi_leaf"},
        "*"}},
      {"u-deep", {{root, thread, "ut::deep_thread", "ut::deep_recurse", "ut::deep_leaf"}, "*"}},
      {"unwind_target-f|unwind_target-n",
       {{"_start", "__libc_start_main|__libc_start_main_impl", "__libc_start_call_main", "main",
         "ut::main_wait", "read|__libc_read|__GI___libc_read"},
        "*"}},
  };
}

const Expectation* expectation_for(const std::map<std::string, Expectation>& all,
                                   const std::string& thread) {
  for (const auto& [name, e] : all) {
    if (matches(thread, name)) return &e;
  }
  return nullptr;
}

std::string libc_path(const std::vector<proc::Mapping>& maps) {
  for (const proc::Mapping& m : maps) {
    if (m.exec && m.path.ends_with("/libc.so.6")) return m.path;
  }
  return "";
}

// Whether a separate debug file for this ELF sits where libdw looks by build-id.
bool has_debug_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  const void* bits = nullptr;
  const ssize_t len = elf != nullptr ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
  std::string hex;
  for (ssize_t i = 0; i < len; ++i) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", static_cast<const unsigned char*>(bits)[i]);
    hex += two;
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  if (hex.size() < 3) return false;
  const std::string debug =
      "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  return access(debug.c_str(), R_OK) == 0;
}

class UnwindTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (ptrace, /proc/PID/mem)";
    if (!std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())
             .starts_with("DeletedExecutable")) {
      start(std::string(HEARTH_TARGETS_DIR) + "/unwind_target-" + GetParam());
    }
  }

  // Starts the target and gets ready to unwind it, as a sampler does before its first stop.
  void start(const std::string& path) {
    ASSERT_TRUE(spawn_target(path, &target_)) << "cannot start " << path;
    auto memory = RemoteMemory::open(target_.pid);
    ASSERT_TRUE(memory) << memory.error().message;
    memory_ = std::make_unique<RemoteMemory>(std::move(*memory));
    auto maps = proc::read_maps(target_.pid);
    ASSERT_TRUE(maps) << maps.error().message;
    maps_ = *maps;
    auto unwinder = Unwinder::create(memory_.get());
    ASSERT_TRUE(unwinder);
    unwinder_ = std::make_unique<Unwinder>(std::move(*unwinder));
    const auto t0 = Clock::now();
    ASSERT_TRUE(unwinder_->prepare(maps_));
    std::printf("  prepare: %.0f us, %llu modules (%llu without .eh_frame_hdr), %llu pages\n",
                us_since(t0), static_cast<unsigned long long>(unwinder_->stats().modules),
                static_cast<unsigned long long>(unwinder_->stats().modules_without_info),
                static_cast<unsigned long long>(memory_->stats().cached_pages));
  }

  std::unique_ptr<Symbolizer> make_symbolizer(SymbolizerOptions options) {
    options.parameters = false;
    auto sym = Symbolizer::create(options);
    EXPECT_TRUE(sym);
    auto out = std::make_unique<Symbolizer>(std::move(*sym));
    const auto t0 = Clock::now();
    EXPECT_TRUE(out->set_maps(target_.pid, maps_, memory_.get()));
    std::printf("  symbolizer set_maps: %.0f us\n", us_since(t0));
    return out;
  }

  UnwindTarget target_;
  std::unique_ptr<RemoteMemory> memory_;
  std::vector<proc::Mapping> maps_;
  std::unique_ptr<Unwinder> unwinder_;
};

TEST_P(UnwindTest, CompleteStacksFromRootToLeaf) {
  auto sym = make_symbolizer({});
  const auto snaps = snapshot(target_.pid, *memory_, 64 << 10);
  ASSERT_EQ(snaps.size(), 10u);
  const auto all = expectations();
  const bool libc_debug = has_debug_file(libc_path(maps_));
  std::printf("  libc debug info (libc6-dbg): %s\n", libc_debug ? "yes" : "no");
  for (const ThreadSnap& s : snaps) {
    SCOPED_TRACE(s.name);
    UnwindStatus status;
    auto t0 = Clock::now();
    const auto ips = unwinder_->unwind(s.regs, s.stack, 1024, &status);
    const double first_us = us_since(t0);
    std::vector<double> runs;  // warm: libunwind's register-state cache and our page cache
    for (int i = 0; i < 21; ++i) {
      t0 = Clock::now();
      const auto again = unwinder_->unwind(s.regs, s.stack, 1024, nullptr);
      runs.push_back(us_since(t0));
      EXPECT_EQ(ips, again);
    }
    std::nth_element(runs.begin(), runs.begin() + 10, runs.end());
    const double second_us = runs[10];
    t0 = Clock::now();
    const auto frames = symbolize(*sym, ips, status);
    const double sym_first_us = us_since(t0);
    t0 = Clock::now();
    symbolize(*sym, ips, status);
    const double sym_cached_us = us_since(t0);
    std::printf(
        "  %-16s %3zu ips  unwind first %5.1f, warm median %5.1f us;"
        "  symbolize first %8.1f, cached %5.1f us  (%s)\n",
        s.name.c_str(), ips.size(), first_us, second_us, sym_first_us, sym_cached_us,
        to_string(status.stop));
    const std::string folded = joined(frames);
    EXPECT_EQ(status.stop, UnwindStop::kEndOfStack) << folded;
    for (const NamedFrame& f : frames) EXPECT_NE(f.name, "[unknown]") << folded;
    const Expectation* e = expectation_for(all, s.name);
    ASSERT_NE(e, nullptr);
    std::vector<std::string> want = e->frames;
    if (!libc_debug) {  // internal libc names need libc6-dbg; check the program's own frames
      std::erase_if(want, [](const std::string& n) { return n.rfind("ut::", 0) != 0; });
    } else {
      ASSERT_FALSE(frames.empty());
      EXPECT_TRUE(matches(frames.front().name, want.front())) << folded;
      for (const NamedFrame& f : frames)
        EXPECT_EQ(f.name.find("[libc"), std::string::npos) << folded;
    }
    EXPECT_GE(find_in_order(frames, want), 0) << folded;
    EXPECT_TRUE(matches(frames.back().name, e->leaf)) << folded;
    if (s.name == "u-spin") {  // the function, then its inlines in order: F;B_[i];A_[i]
      ASSERT_GE(frames.size(), 3u);
      EXPECT_EQ(frames[frames.size() - 3].name, "ut::leaf_spin") << folded;
      EXPECT_FALSE(frames[frames.size() - 3].inlined) << folded;
      EXPECT_EQ(frames[frames.size() - 2].name, "ut::spin_inner") << folded;
      EXPECT_TRUE(frames[frames.size() - 2].inlined) << folded;
      EXPECT_EQ(frames.back().name, "ut::spin_innermost") << folded;
      EXPECT_TRUE(frames.back().inlined) << folded;
    }
    if (s.name == "u-deep") {
      EXPECT_EQ(std::count_if(frames.begin(), frames.end(),
                              [](const NamedFrame& f) { return f.name == "ut::deep_recurse"; }),
                201)
          << folded;
    }
    if (s.name == "u-signal") {  // the interrupted frame and the trampoline have exact IPs
      EXPECT_EQ(status.exact_ips.size(), 2u) << folded;
    }
  }
  const RemoteMemoryStats& m = memory_->stats();
  std::printf(
      "  memory: %llu hits, %llu misses, %llu direct reads, %llu refused; unwinder: %llu "
      "table lookups, %llu without info\n",
      static_cast<unsigned long long>(m.hits), static_cast<unsigned long long>(m.misses),
      static_cast<unsigned long long>(m.outside_copy),
      static_cast<unsigned long long>(m.stack_overrun),
      static_cast<unsigned long long>(unwinder_->stats().find_proc_info),
      static_cast<unsigned long long>(unwinder_->stats().no_info));
  EXPECT_GT(unwinder_->stats().no_info, 0u);  // ut_nocfi_trampoline: the rbp fallback
}

// What `stack:` rules match (Symbolizer::function_name): each frame's function as the symbol
// tables name it, the same as symbolize()'s outer frame, with no inlined function and no DWARF
// read (nothing resolved by symbolize()).
TEST_P(UnwindTest, FunctionNamesComeFromTheSymbolTablesAlone) {
  auto sym = make_symbolizer({});
  const auto snaps = snapshot(target_.pid, *memory_, 64 << 10);
  ASSERT_EQ(snaps.size(), 10u);
  std::vector<std::pair<uint64_t, bool>> looked_up;  // (ip, is a return address)
  for (const ThreadSnap& s : snaps) {
    SCOPED_TRACE(s.name);
    UnwindStatus status;
    const auto ips = unwinder_->unwind(s.regs, s.stack, 1024, &status);
    ASSERT_FALSE(ips.empty());
    std::string names;
    for (size_t i = ips.size(); i-- > 0;) {
      const bool ret = is_return_address(status, i);
      const std::string& name = sym->function_name(ips[i], ret);
      EXPECT_FALSE(name.empty());
      names += (names.empty() ? "" : ";") + name;
      looked_up.emplace_back(ips[i], ret);
    }
    if (s.name == "u-spin") {  // the leaf is the function, not what was inlined into it
      EXPECT_TRUE(names.ends_with(";ut::leaf_spin")) << names;
      EXPECT_EQ(names.find("spin_innermost"), std::string::npos) << names;
    }
  }
  EXPECT_EQ(sym->stats().resolved, 0u) << "function_name() resolved through symbolize()";
  EXPECT_GT(sym->stats().names_resolved, 0u);
  // The same names as symbolize()'s outer frames (where the symbol tables name the address).
  for (const auto& [ip, ret] : looked_up) {
    const std::string& name = sym->function_name(ip, ret);
    if (name.starts_with("[")) continue;  // unnamed by the symbol tables: DWARF may name it
    const std::vector<Frame>& full = sym->symbolize(ip, ret);
    ASSERT_FALSE(full.empty());
    EXPECT_EQ(full.front().name, name);
  }
}

TEST_P(UnwindTest, MaxFramesAndShortCopiesAreReported) {
  auto snaps = snapshot(target_.pid, *memory_, 64 << 10);
  const ThreadSnap* deep = nullptr;
  for (const ThreadSnap& s : snaps) {
    if (s.name == "u-deep") deep = &s;
  }
  ASSERT_NE(deep, nullptr);
  UnwindStatus status;
  auto ips = unwinder_->unwind(deep->regs, deep->stack, kDefaultMaxFrames, &status);
  EXPECT_EQ(ips.size(), kDefaultMaxFrames);
  EXPECT_EQ(status.stop, UnwindStop::kMaxFrames);
  ips = unwinder_->unwind(deep->regs, deep->stack, 300, &status);
  EXPECT_GE(ips.size(), 200u);
  EXPECT_EQ(status.stop, UnwindStop::kEndOfStack);
  // A copy of one page holds a few frames only: the unwinder says it ran out of copy.
  StackCopy small;
  ASSERT_TRUE(memory_->copy_stack(deep->regs.rsp, 1, small));
  EXPECT_EQ(small.bytes.size() % kPageSize, 0u);
  ips = unwinder_->unwind(deep->regs, small, 300, &status);
  EXPECT_LT(ips.size(), 200u);
  EXPECT_EQ(status.stop, UnwindStop::kOutsideCopy) << to_string(status.stop);
  EXPECT_GT(memory_->stats().stack_overrun, 0u);
}

// The bpf capture unwinds each copy where it lies (a StackView into its arena) instead of a
// StackCopy of its own: the same bytes at another address give the same stack, the same stop,
// and a view cut to its first page runs out of copy exactly as a one-page copy does.
TEST_P(UnwindTest, AViewOfTheCopyElsewhereUnwindsTheSame) {
  const auto snaps = snapshot(target_.pid, *memory_, 64 << 10);
  ASSERT_GE(snaps.size(), 5u);
  std::vector<uint8_t> arena;
  std::vector<uint64_t> from_view;
  for (const ThreadSnap& s : snaps) {
    SCOPED_TRACE(s.name);
    arena.assign(s.stack.bytes.begin(), s.stack.bytes.end());  // another buffer, another address
    UnwindStatus by_copy, by_view;
    const auto ips = unwinder_->unwind(s.regs, s.stack, 300, &by_copy);
    unwinder_->unwind(s.regs, StackView{s.stack.base, arena}, 300, &by_view, &from_view);
    EXPECT_EQ(from_view, ips);
    EXPECT_EQ(by_view.stop, by_copy.stop);
    EXPECT_EQ(by_view.exact_ips, by_copy.exact_ips);
    if (s.name != "u-deep") continue;
    EXPECT_GE(ips.size(), 200u);
    const size_t page = kPageSize - (s.stack.base & (kPageSize - 1));
    unwinder_->unwind(s.regs, StackView{s.stack.base, std::span(arena).first(page)}, 300,
                      &by_view, &from_view);
    EXPECT_LT(from_view.size(), 200u);
    EXPECT_EQ(by_view.stop, UnwindStop::kOutsideCopy) << to_string(by_view.stop);
  }
}

// Registers that make no sense (a corrupt stack, a wild jump) must end an unwind, never crash
// or hang it: every read goes through RemoteMemory, every loop is bounded.
TEST_P(UnwindTest, GarbageRegistersEndTheUnwindCleanly) {
  const auto snaps = snapshot(target_.pid, *memory_, 16 << 10);
  ASSERT_FALSE(snaps.empty());
  uint64_t x = 0x9e3779b97f4a7c15;
  auto next = [&x] {  // xorshift64
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  std::vector<uint64_t> code;  // addresses inside executable mappings
  for (const proc::Mapping& m : maps_) {
    if (m.exec) code.push_back(m.start), code.push_back(m.end - 1);
  }
  for (int i = 0; i < 3000; ++i) {
    const ThreadSnap& s = snaps[static_cast<size_t>(i) % snaps.size()];
    user_regs_struct regs = s.regs;
    const uint64_t lo = code[next() % code.size() & ~uint64_t{1}];
    regs.rip = i % 3 == 0 ? next() : lo + next() % 0x10000;
    regs.rsp = s.stack.base + next() % (s.stack.bytes.size() + 64);
    regs.rbp = i % 2 == 0 ? next() : s.stack.base + next() % s.stack.bytes.size();
    UnwindStatus status;
    const auto ips = unwinder_->unwind(regs, s.stack, 64, &status);
    ASSERT_GE(ips.size(), 1u);
    ASSERT_LE(ips.size(), 64u);
  }
}

TEST_P(UnwindTest, ThroughTheVdso) {
  auto sym = make_symbolizer({});
  const proc::Mapping* vdso = nullptr;
  for (const proc::Mapping& m : maps_) {
    if (m.path == "[vdso]") vdso = &m;
  }
  ASSERT_NE(vdso, nullptr);
  for (int attempt = 0; attempt < 50; ++attempt) {
    for (const ThreadSnap& s : snapshot(target_.pid, *memory_, 64 << 10)) {
      if (s.name != "u-vdso" || s.regs.rip < vdso->start || s.regs.rip >= vdso->end) continue;
      UnwindStatus status;
      const auto ips = unwinder_->unwind(s.regs, s.stack, kDefaultMaxFrames, &status);
      const auto frames = symbolize(*sym, ips, status);
      const std::string folded = joined(frames);
      std::printf("  vdso stack (attempt %d): %s\n", attempt, folded.c_str());
      EXPECT_EQ(status.stop, UnwindStop::kEndOfStack) << folded;
      EXPECT_GE(find_in_order(frames, {"clone3|ut::vdso_thread", "ut::vdso_0", "ut::vdso_1",
                                       "ut::leaf_vdso"}),
                0)
          << folded;
      EXPECT_EQ(frames.back().name.find("[unknown]"), std::string::npos) << folded;
      return;
    }
    usleep(2000);
  }
  GTEST_SKIP() << "no sample landed in the vDSO in 50 tries";
}

// .dynsym of one file: name → [value, value + size) ranges (several versions may share a name).
std::multimap<std::string, std::pair<uint64_t, uint64_t>> dynsym(const std::string& path) {
  std::multimap<std::string, std::pair<uint64_t, uint64_t>> out;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  for (Elf_Scn* scn = nullptr; elf != nullptr && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data != nullptr && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym s;
      if (gelf_getsym(data, static_cast<int>(i), &s) == nullptr || s.st_value == 0) continue;
      out.emplace(elf_strptr(elf, sh.sh_link, s.st_name),
                  std::make_pair(s.st_value, s.st_value + s.st_size));
    }
  }
  if (elf != nullptr) elf_end(elf);
  if (fd >= 0) close(fd);
  return out;
}

TEST_P(UnwindTest, StrippedLibcIsNeverMisnamed) {
  // No separate debug files: libc has only .dynsym, which lacks its internal functions.
  SymbolizerOptions options;
  options.debuginfo_path = "/nonexistent-debuginfo";
  auto sym = make_symbolizer(options);
  const proc::Mapping* libc = nullptr;
  for (const proc::Mapping& m : maps_) {
    if (m.exec && m.path.ends_with("/libc.so.6")) libc = &m;
  }
  ASSERT_NE(libc, nullptr);
  const auto symbols = dynsym(libc->path);
  ASSERT_FALSE(symbols.empty());
  const int fd = open(libc->path.c_str(), O_RDONLY | O_CLOEXEC);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  const uint64_t bias = elf_load_bias(elf, *libc).value_or(0);
  elf_end(elf);
  close(fd);
  int checked = 0, bracketed = 0;
  for (const ThreadSnap& s : snapshot(target_.pid, *memory_, 64 << 10)) {
    UnwindStatus status;
    const auto frames = symbolize(*sym, unwinder_->unwind(s.regs, s.stack, 1024, &status), status);
    const std::string folded = joined(frames);
    std::printf("  %-18s %s\n", s.name.c_str(), folded.c_str());
    EXPECT_EQ(status.stop, UnwindStop::kEndOfStack) << folded;
    for (const NamedFrame& f : frames) {
      const proc::Mapping* m = memory_->find_mapping(f.addr);
      if (m == nullptr || m->path != libc->path || f.inlined) continue;
      if (f.name.rfind("[libc.so.6+0x", 0) == 0) {
        ++bracketed;
        continue;
      }
      // A name from .dynsym must be a symbol whose extent covers the address.
      bool covered = false;
      auto [lo, hi] = symbols.equal_range(f.name);
      for (auto it = lo; it != hi; ++it) {
        covered |= f.addr - bias >= it->second.first && f.addr - bias < it->second.second;
      }
      EXPECT_TRUE(covered) << f.name << " does not cover " << std::hex << f.addr - bias << " in "
                           << folded;
      ++checked;
    }
  }
  std::printf("  libc frames: %d named from .dynsym (all verified), %d as [libc.so.6+0x…]\n",
              checked, bracketed);
  EXPECT_GT(checked, 0);
  EXPECT_GT(bracketed, 0);  // e.g. start_thread, __lll_lock_wait: not exported
}

TEST_P(UnwindTest, SymbolizesAfterTheTargetExited) {
  auto sym = make_symbolizer({});
  const auto snaps = snapshot(target_.pid, *memory_, 64 << 10);
  std::vector<std::pair<std::vector<uint64_t>, UnwindStatus>> stacks;
  for (const ThreadSnap& s : snaps) {
    UnwindStatus status;
    auto ips = unwinder_->unwind(s.regs, s.stack, 1024, &status);
    stacks.emplace_back(std::move(ips), status);
  }
  // Reporting the same maps again keeps the modules (libdwfl's add-only path).
  ASSERT_TRUE(sym->set_maps(target_.pid, maps_, memory_.get()));
  EXPECT_EQ(sym->stats().modules, 4u);  // the program, libc, ld.so, the vDSO
  kill(target_.pid, SIGKILL);
  waitpid(target_.pid, nullptr, 0);
  target_.pid = -1;
  for (const auto& [ips, status] : stacks) {
    const auto frames = symbolize(*sym, ips, status);
    EXPECT_GE(find_in_order(frames, {"ut::*"}), 0) << joined(frames);
    for (const NamedFrame& f : frames) EXPECT_NE(f.name, "[unknown]") << joined(frames);
  }
}

// The executable is deleted while it runs (an upgrade under a running server): its ELF is
// still reachable through /proc/PID/map_files, for unwind tables and for symbols.
TEST_P(UnwindTest, DeletedExecutableStillUnwindsAndSymbolizes) {
  const std::string original = std::string(HEARTH_TARGETS_DIR) + "/unwind_target-" + GetParam();
  char copy[] = "/tmp/hearth-unwind-target-XXXXXX";
  const int fd = mkstemp(copy);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(std::system(("cp " + original + " " + copy + " && chmod +x " + copy).c_str()), 0);
  ASSERT_NO_FATAL_FAILURE(start(copy));
  unlink(copy);
  auto maps = proc::read_maps(target_.pid);
  ASSERT_TRUE(maps);
  maps_ = *maps;
  ASSERT_TRUE(unwinder_->prepare(maps_));
  bool deleted = false;
  for (const proc::Mapping& m : maps_) deleted |= m.exec && m.deleted && m.path == copy;
  ASSERT_TRUE(deleted) << "the maps do not show the executable as deleted";
  auto sym = make_symbolizer({});
  for (const ThreadSnap& s : snapshot(target_.pid, *memory_, 64 << 10)) {
    UnwindStatus status;
    const auto frames = symbolize(*sym, unwinder_->unwind(s.regs, s.stack, 1024, &status), status);
    EXPECT_EQ(status.stop, UnwindStop::kEndOfStack) << joined(frames);
    EXPECT_GE(find_in_order(frames, {"ut::*"}), 0) << joined(frames);
  }
}

// The benchmark's target (stack_target: extern "C" level_0 … level_{D-1} → leaf_KIND):
// every worker's stack complete at depth 40, on both builds.
TEST_P(UnwindTest, StackTargetWorkersAreComplete) {
  const std::string path = std::string(HEARTH_TARGETS_DIR) + "/stack_target-" + GetParam();
  if (access(path.c_str(), X_OK) != 0) GTEST_SKIP() << path << " not built";
  UnwindTarget target;
  constexpr int kDepth = 40;
  ASSERT_TRUE(spawn_target(path, &target,
                           {"--threads", "12", "--depth", std::to_string(kDepth), "--spin", "4"}));
  auto memory = RemoteMemory::open(target.pid);
  ASSERT_TRUE(memory);
  auto maps = proc::read_maps(target.pid);
  ASSERT_TRUE(maps);
  auto unwinder = Unwinder::create(&*memory);
  ASSERT_TRUE(unwinder);
  ASSERT_TRUE(unwinder->prepare(*maps));
  SymbolizerOptions options;
  options.parameters = false;
  auto sym = Symbolizer::create(options);
  ASSERT_TRUE(sym);
  ASSERT_TRUE(sym->set_maps(target.pid, *maps, &*memory));
  std::vector<std::string> want;  // libc's own names need libc6-dbg
  if (has_debug_file(libc_path(*maps))) want = {"clone3|__clone3", "start_thread"};
  for (int i = 0; i < kDepth; ++i) want.push_back("level_" + std::to_string(i));
  // Not "leaf": at -O2 its switch tail-calls leaf_KIND (a jmp), so its frame is truly absent.
  int workers = 0;
  for (const ThreadSnap& s : snapshot(target.pid, *memory, 64 << 10)) {
    const bool worker =
        s.name.starts_with("spin-") || s.name.starts_with("mutex-") || s.name.starts_with("cond-");
    UnwindStatus status;
    const auto frames = symbolize(*sym, unwinder->unwind(s.regs, s.stack, 128, &status), status);
    EXPECT_EQ(status.stop, UnwindStop::kEndOfStack) << s.name << ": " << joined(frames);
    if (!worker) continue;
    ++workers;
    auto with_leaf = want;
    with_leaf.push_back("leaf_" + s.name.substr(0, s.name.find('-')));
    EXPECT_GE(find_in_order(frames, with_leaf), 0) << s.name << ": " << joined(frames);
  }
  EXPECT_EQ(workers, 12);
}

TEST(UnwindNames, CleanSymbolNames) {
  EXPECT_EQ(clean_symbol_name("_ZN2ut6spin_0Ei", true), "ut::spin_0(int)");
  EXPECT_EQ(clean_symbol_name("_ZN2ut6spin_0Ei", false), "ut::spin_0");
  EXPECT_EQ(clean_symbol_name("pthread_cond_wait@@GLIBC_2.3.2", true), "pthread_cond_wait");
  EXPECT_EQ(clean_symbol_name("__GI___lll_lock_wait", true), "__lll_lock_wait");
  EXPECT_EQ(clean_symbol_name("_Z3fooPFviE", false), "foo");  // foo(void (*)(int))
  EXPECT_EQ(clean_symbol_name("_ZZ4mainENKUliE_clEi", false), "main::{lambda(int)#1}::operator()");
  EXPECT_EQ(clean_symbol_name("_ZN12_GLOBAL__N_13barEv", false), "(anonymous namespace)::bar");
  EXPECT_EQ(clean_symbol_name("_Znot_mangled", true), "_Znot_mangled");
  EXPECT_EQ(clean_symbol_name("a;b", true), "a:b");
}

INSTANTIATE_TEST_SUITE_P(Unwind, UnwindTest, ::testing::Values("fp", "nofp"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace hearth::stacks
