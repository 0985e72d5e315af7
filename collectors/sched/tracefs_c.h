// libtracefs's and kbuffer's headers for C++. They lack extern "C", and tracefs.h passes an
// int literal where its own enum is expected (tracefs_hist_start() & co.): an error in C++
// unless -fpermissive, which CMakeLists.txt sets for the files including this header (the
// header is included as a system header, so the downgraded diagnostic stays silent). Include
// this, never <tracefs.h> or <kbuffer.h> directly.
#pragma once

#include <event-parse.h>

extern "C" {
#include <kbuffer.h>
#include <tracefs.h>
}
