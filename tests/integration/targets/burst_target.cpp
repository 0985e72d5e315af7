// A service that is calm until told otherwise, for `hearth watch`'s tests: the calm before a
// trigger and the misbehaviour after it.
//
//   burst_target [--threads N] [--tag TEXT]
//
// N worker threads (default 4, named worker-1..N) sleep in calm_wait() (1 ms naps). On SIGUSR1
// they all start contending on one mutex in contend_on_lock(): each takes it, spins ~200 µs
// under it, lets it go, over and over; SIGUSR2 calms them again. Prints "ready PID" once every
// worker runs under its name; exits when stdin closes. --tag is not used: it puts TEXT in the
// command line, for a test that finds its own target by name (hearth watch --comm).
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_burst{false};
std::atomic<bool> g_quit{false};
std::atomic<int> g_named{0};
std::mutex g_lock;
volatile unsigned long g_sink = 0;

void on_usr1(int) {
  g_burst.store(true);
}
void on_usr2(int) {
  g_burst.store(false);
}

__attribute__((noinline)) void calm_wait() {
  timespec ts = {0, 1000000};
  nanosleep(&ts, nullptr);
}

__attribute__((noinline)) void contend_on_lock() {
  std::lock_guard<std::mutex> hold(g_lock);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  while (std::chrono::steady_clock::now() < until) g_sink = g_sink + 1;
}

void worker_main(int index) {
  std::string name = "worker-" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  g_named.fetch_add(1);
  while (!g_quit.load()) {
    if (g_burst.load()) {
      contend_on_lock();
    } else {
      calm_wait();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
  }
  struct sigaction a = {};
  sigemptyset(&a.sa_mask);
  a.sa_flags = SA_RESTART;
  a.sa_handler = on_usr1;
  sigaction(SIGUSR1, &a, nullptr);
  a.sa_handler = on_usr2;
  sigaction(SIGUSR2, &a, nullptr);
  std::vector<std::thread> workers;
  for (int i = 1; i <= threads; ++i) workers.emplace_back(worker_main, i);
  while (g_named.load() < threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  char buf[256];
  while (read(STDIN_FILENO, buf, sizeof buf) > 0) {
  }
  g_quit.store(true);
  for (std::thread& t : workers) t.join();
  return 0;
}
