#include "collectors/mmv/sigbus_guard.h"

#include <setjmp.h>
#include <signal.h>

#include <mutex>

namespace hearth::mmv {
namespace {

thread_local sigjmp_buf* t_jump = nullptr;
struct sigaction g_previous;

void on_sigbus(int sig, siginfo_t* info, void* context) {
  if (sigjmp_buf* j = t_jump) {
    t_jump = nullptr;
    siglongjmp(*j, 1);
  }
  // Not ours: behave as before the handler was installed.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) {
      g_previous.sa_sigaction(sig, info, context);
      return;
    }
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  signal(SIGBUS, SIG_DFL);  // returning re-executes the load, which now kills
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, &g_previous);
}

}  // namespace

bool guard_sigbus(void (*fn)(void*), void* arg) {
  static std::once_flag once;
  std::call_once(once, install);
  sigjmp_buf jump;
  // volatile: read after siglongjmp.
  volatile bool ok = true;
  if (sigsetjmp(jump, 1) == 0) {
    t_jump = &jump;
    fn(arg);
  } else {
    ok = false;
  }
  t_jump = nullptr;
  return ok;
}

}  // namespace hearth::mmv
