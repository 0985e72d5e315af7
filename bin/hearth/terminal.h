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

  // A key pressed since the last call, or 0. Never blocks.
  char read_key();
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
