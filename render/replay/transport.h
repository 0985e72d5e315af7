// `hearth replay`'s transport: where in the recording the view is, how fast it moves, the
// loop, and the keys that change them. Pure (no terminal, no clock): the caller feeds it the
// bytes typed and the real time that passed, then draws the round it points at.
//
//   space      pause / resume (at the end: play again from the start)
//   <- / ->    one sample back / forward (pauses first when playing)
//   [ / ]      half / double speed (1/64x to 64x)
//   l          loop: first press marks the start, second the end, third clears
//   g          go to a time: type seconds since the recording's start, Enter (Esc: cancel)
//   q          quit (Ctrl-C is the terminal's signal: the caller's business)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::replay {

enum class Key {
  kOther,
  kSpace,
  kLeft,
  kRight,
  kSlower,  // [
  kFaster,  // ]
  kLoop,    // l
  kGoTo,    // g
  kEnter,
  kBackspace,
  kEscape,
  kQuit,  // q
  kChar,  // any other printable byte (typed digits)
};

struct KeyPress {
  Key key = Key::kOther;
  char ch = 0;  // the byte typed (kChar, and every one-byte key)
};

// Bytes from a terminal in raw mode -> keys. Arrow keys come as escape sequences (ESC [ C,
// ESC O C); an ESC with nothing after it is Escape once flush() says no more bytes came.
class KeyDecoder {
 public:
  std::vector<KeyPress> feed(std::string_view bytes);
  // The input went quiet: a pending lone ESC is the Escape key.
  std::vector<KeyPress> flush();

 private:
  std::string pending_;  // the start of an escape sequence
};

struct TransportOptions {
  uint64_t begin_ns = 0;  // the range played (recording time, since its time 0)
  uint64_t end_ns = 0;
  std::optional<uint64_t> start_ns;  // where it starts, within the range; default: its beginning
  double speed = 1;
  bool loop = false;  // the whole range, over and over
  bool paused = false;
};

class Transport {
 public:
  static constexpr double kMinSpeed = 1.0 / 64, kMaxSpeed = 64;

  // TIMES: every round's time, not decreasing, not empty; must outlive the Transport.
  Transport(std::span<const uint64_t> times, const TransportOptions& options);

  void press(const KeyPress& key);
  // REAL_S seconds passed: moves forward by REAL_S x speed when playing, wraps in a loop,
  // stops (paused) at the end of the range.
  void advance(double real_s);

  uint64_t position_ns() const { return position_ns_; }
  // The round shown: the last one at or before the position, not before the range's first.
  size_t round() const;
  double speed() const { return speed_; }
  bool paused() const { return paused_; }
  bool quit() const { return quit_; }
  // The loop's ends, set by `l`, in recording time; the whole range under --loop.
  std::optional<uint64_t> loop_start() const { return loop_start_; }
  std::optional<uint64_t> loop_end() const { return loop_end_; }
  // `g`: what has been typed so far (nullopt: not typing).
  const std::optional<std::string>& typing() const { return typing_; }
  // A word for the user about the last key ("not a time: 1..2"); cleared by the next key.
  const std::string& note() const { return note_; }
  uint64_t begin_ns() const { return begin_ns_; }
  uint64_t end_ns() const { return end_ns_; }

 private:
  void step(int direction);
  void go_to(const std::string& typed);
  size_t first_round() const;  // the first round in the range

  std::span<const uint64_t> times_;
  uint64_t begin_ns_, end_ns_;
  uint64_t position_ns_;
  double speed_;
  double carry_ns_ = 0;  // the part of a nanosecond advance() could not add yet
  bool loop_all_;
  bool paused_;
  bool quit_ = false;
  std::optional<uint64_t> loop_start_, loop_end_;
  std::optional<std::string> typing_;
  std::string note_;
};

}  // namespace hearth::replay
