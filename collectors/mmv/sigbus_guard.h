// Reading a mapping of a file that another process may truncate: a load past the new end of
// the file raises SIGBUS. guard_sigbus runs a copy loop and turns that SIGBUS into a false
// return instead of killing the process. The first call installs a process-wide SIGBUS handler
// that handles only faults inside a guarded call on the same thread and otherwise restores the
// previous disposition and lets the signal kill as before.
#pragma once

namespace hearth::mmv {

// Runs FN(ARG). FN must not allocate, throw, or hold locks: on SIGBUS it is abandoned with
// siglongjmp, so nothing it started is finished. Returns false when it was abandoned.
bool guard_sigbus(void (*fn)(void*), void* arg);

template <typename F>
bool guard_sigbus(F& f) {
  return guard_sigbus([](void* p) { (*static_cast<F*>(p))(); }, &f);
}

}  // namespace hearth::mmv
