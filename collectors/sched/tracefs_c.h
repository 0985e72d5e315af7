// libtracefs's and kbuffer's headers for C++. Include this, never <tracefs.h> or <kbuffer.h>
// directly. The headers lack extern "C", and tracefs.h's inline tracefs_hist_start() & co. pass
// the literal 0 where the enum tracefs_hist_command is expected: valid C, an error in C++.
// Those calls are routed, by a macro that lives only for the include, to an overload with C++
// linkage that takes an int. hearth uses no histogram call: the overload is declared, never
// defined, so a future use fails at link time rather than passing a wrong value.
#pragma once

#include <event-parse.h>

struct tracefs_instance;
struct tracefs_hist;
int hearth_tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command);

#define tracefs_hist_command(instance, hist, command) \
  hearth_tracefs_hist_command(instance, hist, command)
extern "C" {
#include <kbuffer.h>
#include <tracefs.h>
}
#undef tracefs_hist_command
