// elfutils' eu-stack text (`eu-stack -p PID`, one snapshot, or many concatenated: the
// poor-man's-profiler form) read as stacks: each "TID N:" block is one sample of that thread,
// rooted as hearth roots a thread ("[unnamed tid=TID]": eu-stack prints no thread names), its
// frames outermost first, each named by its symbol as eu-stack prints it (demangled unless `-r`),
// without a symbol version ("clock_nanosleep@GLIBC_2.2.5" -> "clock_nanosleep"); a frame with no
// symbol is "[MODULE]" when `-m` says which file it is in, else "[unknown]". eu-stack's options
// change only what the lines carry: `-s` source and `-b` build-id lines (indented) are skipped,
// `-i` inlined frames are frames like the others, `-a`'s activation mark ("- 1") and `-m`'s
// module (" - /path") are taken off the name. "PID N - process" (or "- core") lines, and
// anything else, end a thread's block.
//
// The folder turns lines into folded stack lines, one per thread block, for the folded reader
// (folded_reader.h): `eu-stack -p PID | hearth flame -o out.svg`. Shares its folding with gdb's
// reader (thread_blocks.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "render/profile/thread_blocks.h"

namespace hearth::profile {

// "PID 4242 - process", "PID 4242 - core".
bool is_eu_stack_process_header(std::string_view line);
// "TID 4243:".
bool is_eu_stack_thread_header(std::string_view line);
// "#0  0x00007f4cabd37503 clock_nanosleep@GLIBC_2.2.5", "#12 0x000055bedf54c4af - /usr/bin/x":
// '#', the frame number, blanks, a hex address.
bool is_eu_stack_frame(std::string_view line);

// The frame a frame line names (see above).
std::string eu_stack_frame_name(std::string_view line);

class EuStackFolder {
 public:
  // EMIT gets each finished thread's folded line ("[unnamed tid=TID];outer;…;leaf 1").
  explicit EuStackFolder(std::function<void(std::string_view)> emit);

  void add_line(std::string_view line);
  void finish();  // the last thread's block ends with the text

  uint64_t threads() const { return blocks_.threads(); }  // thread blocks with at least one frame

 private:
  text::ThreadBlockFolder blocks_;
};

}  // namespace hearth::profile
