// gdb's `thread apply all bt` text (what a poor-man's profiler leaves on disk: one snapshot, or
// many concatenated) read as stacks: each "Thread N (... (LWP TID) "NAME"):" block is one sample
// of that thread, rooted as hearth roots a thread ("[NAME tid=TID]"), its frames outermost first,
// each named by its function without gdb's argument list; a frame gdb could not name is
// "[LIBRARY]" when gdb says which file it is in, else "[unknown]". gdb's other lines (its
// preamble, "[New LWP …]", source lines, the frame of `-p` attaching) are skipped.
//
// The folder turns lines into folded stack lines ("root;…;leaf 1"), one per thread block, so the
// folded reader (folded_reader.h) does the rest: `gdb -p PID -batch -ex 'thread apply all bt' |
// hearth flame -o out.svg`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "render/profile/thread_blocks.h"

namespace hearth::profile {

// "Thread 26 (Thread 0x77fa38cca6c0 (LWP 28083) "mariadbd"):", and gdb's other forms of it
// ("Thread 1 (LWP 42 "x"):", no name, "(process 42)").
bool is_gdb_thread_header(std::string_view line);
// "#3  0x00007ffa578a6baf in f (a=1) at f.c:503", "#4  g (…) at …", "#9  0x… in ?? () from …".
bool is_gdb_frame(std::string_view line);

// The function a frame line names, without its argument list ("f" for the first example above;
// a C++ name keeps its own parameter list, as gdb prints it: "ns::f(int, char*)");
// "[libstdc++.so.6]" for "?? () from /lib/…/libstdc++.so.6", "[unknown]" for "?? ()". ';' in a name
// becomes ':', so the name is one folded frame.
std::string gdb_frame_name(std::string_view line);

class GdbTextFolder {
 public:
  // EMIT gets each finished thread's folded line ("[NAME tid=TID];outer;…;leaf 1").
  explicit GdbTextFolder(std::function<void(std::string_view)> emit);

  void add_line(std::string_view line);
  void finish();  // the last thread's block ends with the text

  uint64_t threads() const { return blocks_.threads(); }  // thread blocks with at least one frame

 private:
  text::ThreadBlockFolder blocks_;
};

}  // namespace hearth::profile
