// Orderly shutdown for every verb that runs until told to stop (stacks, sched, mmv, record):
// SIGINT, SIGTERM and SIGHUP only raise a flag that the verb's loop polls, so the loop ends at a
// safe point (the sampler releases every thread, the tracer removes its instances). SIGPIPE is
// ignored (a closed output pipe is reported as a write error).
//
// A second SIGINT/SIGTERM/SIGHUP terminates hearth at once (the handler is installed with
// SA_RESETHAND): the kernel then detaches every tracee, as it does on SIGKILL.
#pragma once

namespace hearth {

// Installs the handlers process-wide. Call once, early in main, before attaching.
void install_shutdown_handlers();

// For a service (`hearth watch`): after install_shutdown_handlers(), SIGHUP asks to re-read the
// configuration instead of ending the run (reload_requested() says so, once per request).
void install_reload_handler();
bool reload_requested();

// True once one of the signals arrived. Async-signal-safe, thread-safe, never blocks.
bool shutdown_requested();

// The signal that requested shutdown (SIGINT, SIGTERM, SIGHUP), 0 if none: exit codes and the
// closing message ("interrupted by SIGTERM").
int shutdown_signal();

}  // namespace hearth
