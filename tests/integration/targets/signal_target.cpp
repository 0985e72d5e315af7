// Counts signals, for "signals sent to the target while it is sampled are delivered".
//
//   signal_target [--threads N]
//
// A SIGUSR2 handler counts deliveries (any thread may take them: N helper threads, default 4,
// sleep in 1 ms steps with no signal blocked). On SIGUSR1 the main thread prints "usr2 COUNT".
// On SIGHUP it re-executes itself (same arguments), for tests of a target that calls execve;
// the new image prints "ready PID" again. Prints "ready PID" at start; exits when stdin closes.
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

std::atomic<long> g_usr2{0};
volatile sig_atomic_t g_report = 0;
volatile sig_atomic_t g_reexec = 0;

void on_usr2(int) {
  g_usr2.fetch_add(1, std::memory_order_relaxed);
}
void on_usr1(int) {
  g_report = 1;
}
void on_hup(int) {
  g_reexec = 1;
}

void install(int sig, void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(sig, &action, nullptr);
}

void helper_main(int index) {
  std::string name = "helper-" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  for (;;) {
    timespec ts = {0, 1000000};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  static_assert(std::atomic<long>::is_always_lock_free);
  int threads = 4;
  if (argc == 3 && std::string(argv[1]) == "--threads") {
    threads = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
    return 2;
  }
  install(SIGUSR2, on_usr2);
  install(SIGUSR1, on_usr1);
  install(SIGHUP, on_hup);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  for (int i = 0; i < threads; ++i) std::thread(helper_main, i).detach();
  std::printf("ready %d\n", getpid());
  std::fflush(stdout);

  pollfd fd = {STDIN_FILENO, POLLIN, 0};
  for (;;) {
    int r = poll(&fd, 1, 10);
    if (r > 0) {
      char buffer[256];
      if (read(STDIN_FILENO, buffer, sizeof buffer) <= 0) std::_Exit(0);  // stdin closed
    }
    if (g_report) {
      g_report = 0;
      std::printf("usr2 %ld\n", g_usr2.load());
      std::fflush(stdout);
    }
    if (g_reexec) {
      execv("/proc/self/exe", argv);
      std::perror("execv");
      return 1;
    }
  }
}
