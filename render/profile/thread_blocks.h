// What the readers of debuggers' backtrace text share (gdb's `thread apply all bt`, gdb_text.h;
// eu-stack's, eu_stack_text.h): the text is a run of thread blocks, a header naming the thread
// then its frames innermost first; each block is one sample of that thread, folded as hearth
// folds a thread's stack: "[NAME tid=TID];outermost;…;innermost 1".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::profile::text {

// S without blanks (and a '\r') at either end.
std::string_view trim(std::string_view s);
// The digits at the start of *S, which moves past them; "" when none.
std::string_view take_digits(std::string_view* s);
// NAME made one folded frame: ';' (the frame separator) becomes ':', control bytes '?'.
std::string as_frame(std::string_view name);
// A frame no symbol names, by the file it is in: "[libz.so.1]" for "/usr/lib/libz.so.1"
// (the file's base name), "[unknown]" when PATH is empty.
std::string module_frame(std::string_view path);
// The root frame of a thread, as hearth names one: "[NAME tid=TID]"; "[NAME]" without a tid;
// NAME "unnamed" when empty.
std::string thread_root(std::string_view name, std::string_view tid);

// Folds thread blocks: start() a block, add_frame() its frames innermost first, and the block is
// emitted at the next start() or at finish(), when it has a frame.
class ThreadBlockFolder {
 public:
  // EMIT gets each finished block's folded line ("[NAME tid=TID];outer;…;leaf 1").
  explicit ThreadBlockFolder(std::function<void(std::string_view)> emit);

  void start(std::string root);  // ends the block before, if any
  void end();                    // ends the block, if any: frames until the next start() are not
                                 // a thread's
  void add_frame(std::string frame);
  bool in_block() const { return !root_.empty(); }
  void finish() { end(); }

  uint64_t threads() const { return threads_; }  // blocks with at least one frame

 private:
  std::function<void(std::string_view)> emit_;
  std::string root_;                 // "" outside a block
  std::vector<std::string> frames_;  // innermost first
  std::string line_;
  uint64_t threads_ = 0;
};

}  // namespace hearth::profile::text
