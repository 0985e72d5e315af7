// The terminal for live views: raw keyboard input (no echo, no line buffering; Ctrl-C still
// signals), the alternate screen, and its size. Restored by the destructor.
#pragma once

#include <string>

namespace hearth::cli {

class Terminal {
 public:
  Terminal();  // enters raw mode + the alternate screen when stdin/stdout are terminals
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;
  ~Terminal();

  // True when in raw mode on the alternate screen (stdin and stdout are terminals).
  bool active() const { return active_; }
  // A key pressed since the last call, or 0. Never blocks.
  char read_key();
  // Waits up to TIMEOUT_MS for a key (or a signal); true when one can be read.
  bool wait_for_key(int timeout_ms);
  // Columns and rows now (the terminal may have been resized); 80x24 if unknown.
  void size(int* cols, int* rows) const;
  // Replaces the screen with TEXT (lines separated by '\n').
  void show(const std::string& text);

 private:
  bool active_ = false;
  struct Saved;
  Saved* saved_ = nullptr;
};

}  // namespace hearth::cli
