#include "common/shutdown.h"

#include <signal.h>

#include <atomic>

#include "common/check.h"

namespace hearth {
namespace {

// Lock-free atomics are async-signal-safe; the handler only stores.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

std::atomic<bool> g_reload{false};

void on_reload_signal(int) {
  g_reload.store(true);
}

void on_shutdown_signal(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
}

}  // namespace

void install_shutdown_handlers() {
  struct sigaction action = {};
  action.sa_handler = on_shutdown_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: other code (output writes) need not handle EINTR; the sampler polls the flag
  // at least every millisecond anyway. SA_RESETHAND: a second signal kills us outright.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) HEARTH_CHECK(::sigaction(sig, &action, nullptr) == 0);

  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  HEARTH_CHECK(::sigaction(SIGPIPE, &ignore, nullptr) == 0);
}

void install_reload_handler() {
  struct sigaction action = {};
  action.sa_handler = on_reload_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // every SIGHUP asks again: no SA_RESETHAND
  HEARTH_CHECK(::sigaction(SIGHUP, &action, nullptr) == 0);
}

bool reload_requested() {
  return g_reload.exchange(false);
}

bool shutdown_requested() {
  return g_signal.load(std::memory_order_relaxed) != 0;
}

int shutdown_signal() {
  return g_signal.load(std::memory_order_relaxed);
}

}  // namespace hearth
