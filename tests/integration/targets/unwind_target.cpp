// A process for the unwinder's integration test: threads with known, distinct call chains in
// every situation an unwinder meets: spinning in user code (with an inlined function at the
// leaf), blocked on a mutex, on a condition variable and in read(), interrupted by a signal
// whose handler then sleeps, calling clock_gettime (the vDSO) in a loop, and 200 frames deep.
//
//   unwind_target        (no arguments)
//
// Threads, names as pthread_setname_np sets them, and their stacks root first below start_thread
// (functions in namespace ut, C++ names, never inlined, cloned or tail-called):
//   u-spin    spin_thread → spin_0 → spin_1 → spin_2 → spin_3 → leaf_spin → spin_inner (inlined)
//             → spin_innermost (inlined into spin_inner)
//   u-mutex   mutex_thread → mutex_0 → mutex_1 → mutex_2 → leaf_mutex → pthread_mutex_lock …
//   u-cond    cond_thread → cond_0 → cond_1 → cond_2 → leaf_cond → pthread_cond_wait …
//   u-read    read_thread → read_0 → read_1 → leaf_read → read (a pipe nobody writes)
//   u-epoll   epoll_thread → epoll_0 → leaf_epoll → epoll_wait (on that pipe)
//   u-signal  signal_thread → signal_0 → signal_1 → leaf_signal_spin → [SIGUSR1: __restore_rt]
//             → on_signal → handler_0 → handler_leaf → nanosleep (the handler never returns)
//   u-vdso    vdso_thread → vdso_0 → vdso_1 → leaf_vdso → clock_gettime (vDSO) in a loop
//   u-deep    deep_thread → deep_recurse × 201 (~20 KiB of stack) → deep_leaf → pause
//   u-nocfi   nocfi_thread → nocfi_0 → ut_nocfi_trampoline (assembly, no CFI) → ut_nocfi_leaf
//   main      main → main_wait → read (stdin)
// Protocol: prints "ready PID" once every thread is at its leaf. Exits when stdin closes, and
// is killed when its parent dies.
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "tests/integration/targets/target_frame.h"
// Keeps a call from being a tail call (the caller's frame would vanish from the stack).
#define NO_TAIL __asm__ volatile("" ::: "memory")

namespace ut {

std::atomic<int> g_at_leaf{0};
std::atomic<bool> g_signal_spinning{false};
volatile unsigned long g_sink;
pthread_mutex_t g_held = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_cond_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
int g_pipe[2];
constexpr int kDeep = 200;

// Two levels of inlining: spin_innermost into spin_inner into leaf_spin.
__attribute__((always_inline)) inline void spin_innermost(unsigned long x) {
  for (;;) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    g_sink = x;
  }
}

__attribute__((always_inline)) inline void spin_inner(unsigned long x) {
  spin_innermost(x ^ 1);
}

TARGET_FRAME int leaf_spin(int) {
  g_at_leaf.fetch_add(1);
  spin_inner(g_sink);
  return 0;
}
TARGET_FRAME int spin_3(int d) {
  int r = leaf_spin(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int spin_2(int d) {
  int r = spin_3(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int spin_1(int d) {
  int r = spin_2(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int spin_0(int d) {
  int r = spin_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* spin_thread(void*) {
  spin_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int leaf_mutex(int) {
  g_at_leaf.fetch_add(1);
  pthread_mutex_lock(&g_held);  // main holds it forever
  NO_TAIL;
  return 0;
}
TARGET_FRAME int mutex_2(int d) {
  int r = leaf_mutex(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int mutex_1(int d) {
  int r = mutex_2(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int mutex_0(int d) {
  int r = mutex_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* mutex_thread(void*) {
  mutex_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int leaf_cond(int) {
  pthread_mutex_lock(&g_cond_mutex);
  g_at_leaf.fetch_add(1);
  for (;;) pthread_cond_wait(&g_cond, &g_cond_mutex);  // never signalled
}
TARGET_FRAME int cond_2(int d) {
  int r = leaf_cond(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int cond_1(int d) {
  int r = cond_2(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int cond_0(int d) {
  int r = cond_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* cond_thread(void*) {
  cond_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int leaf_read(int) {
  g_at_leaf.fetch_add(1);
  char c;
  ssize_t n = read(g_pipe[0], &c, 1);  // nobody writes
  NO_TAIL;
  return static_cast<int>(n);
}
TARGET_FRAME int read_1(int d) {
  int r = leaf_read(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int read_0(int d) {
  int r = read_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* read_thread(void*) {
  read_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int leaf_epoll(int) {
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  epoll_ctl(ep, EPOLL_CTL_ADD, g_pipe[0], &ev);
  g_at_leaf.fetch_add(1);
  epoll_event out[1];
  int n;
  do {
    n = epoll_wait(ep, out, 1, -1);  // nobody writes; a ptrace stop ends it with EINTR
  } while (n < 0 && errno == EINTR);
  NO_TAIL;
  return n;
}
TARGET_FRAME int epoll_0(int d) {
  int r = leaf_epoll(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* epoll_thread(void*) {
  epoll_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME void handler_leaf() {
  g_at_leaf.fetch_add(1);
  for (;;) {
    timespec ts{1, 0};
    nanosleep(&ts, nullptr);
  }
}
TARGET_FRAME void handler_0() {
  handler_leaf();
  NO_TAIL;
}
TARGET_FRAME void on_signal(int) {
  handler_0();
  NO_TAIL;
}
TARGET_FRAME int leaf_signal_spin(int) {
  g_signal_spinning.store(true);
  unsigned long x = 3;
  for (;;) {  // SIGUSR1 interrupts this loop at some instruction
    x = x * 2862933555777941757ul + 3037000493ul;
    g_sink = x;
  }
}
TARGET_FRAME int signal_1(int d) {
  int r = leaf_signal_spin(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int signal_0(int d) {
  int r = signal_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* signal_thread(void*) {
  signal_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int leaf_vdso(int) {
  g_at_leaf.fetch_add(1);
  for (;;) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    g_sink = static_cast<unsigned long>(ts.tv_nsec);
  }
}
TARGET_FRAME int vdso_1(int d) {
  int r = leaf_vdso(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME int vdso_0(int d) {
  int r = vdso_1(d + 1);
  NO_TAIL;
  return r + 1;
}
TARGET_FRAME void* vdso_thread(void*) {
  vdso_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int deep_leaf() {
  g_at_leaf.fetch_add(1);
  for (;;) pause();
}
// ~100 bytes of stack per level: the 201 levels need ~20 KiB, more than a page of stack copy.
TARGET_FRAME int deep_recurse(int n) {
  volatile char pad[80];
  pad[0] = static_cast<char>(n);
  int r = n == 0 ? deep_leaf() : deep_recurse(n - 1);
  NO_TAIL;
  return r + pad[0];
}
TARGET_FRAME void* deep_thread(void*) {
  deep_recurse(kDeep);
  NO_TAIL;
  return nullptr;
}

// Code without unwind info (no CFI, so no FDE in .eh_frame): only the frame-pointer fallback
// gets past it. It keeps a standard rbp frame, as hand-written assembly usually does.
extern "C" void ut_nocfi_trampoline();
extern "C" TARGET_FRAME void ut_nocfi_leaf() {
  g_at_leaf.fetch_add(1);
  for (;;) pause();
}
__asm__(R"(
  .text
  .globl ut_nocfi_trampoline
  .type ut_nocfi_trampoline, @function
ut_nocfi_trampoline:
  push %rbp
  mov %rsp, %rbp
  call ut_nocfi_leaf
  pop %rbp
  ret
  .size ut_nocfi_trampoline, .-ut_nocfi_trampoline
)");
TARGET_FRAME int nocfi_0(int) {
  ut_nocfi_trampoline();
  NO_TAIL;
  return 1;
}
TARGET_FRAME void* nocfi_thread(void*) {
  nocfi_0(0);
  NO_TAIL;
  return nullptr;
}

TARGET_FRAME int main_wait() {
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  NO_TAIL;
  return 0;
}

pthread_t start(void* (*fn)(void*), const char* name) {
  pthread_t t;
  if (pthread_create(&t, nullptr, fn, nullptr) != 0) std::abort();
  pthread_setname_np(t, name);
  return t;
}

}  // namespace ut

int main() {
  using namespace ut;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (pipe(g_pipe) != 0) return 1;
  pthread_mutex_lock(&g_held);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, nullptr);

  start(spin_thread, "u-spin");
  start(mutex_thread, "u-mutex");
  start(cond_thread, "u-cond");
  start(read_thread, "u-read");
  start(epoll_thread, "u-epoll");
  start(vdso_thread, "u-vdso");
  start(deep_thread, "u-deep");
  start(nocfi_thread, "u-nocfi");
  const pthread_t sig = start(signal_thread, "u-signal");
  while (!g_signal_spinning.load()) usleep(1000);
  usleep(10000);  // let it run into the loop proper
  pthread_kill(sig, SIGUSR1);
  while (g_at_leaf.load() < 9) usleep(1000);
  usleep(100000);  // the blocking leaves reach their syscalls
  std::printf("ready %d\n", getpid());
  std::fflush(stdout);
  return main_wait();
}
