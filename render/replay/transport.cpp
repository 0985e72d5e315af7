#include "render/replay/transport.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/check.h"

namespace hearth::replay {
namespace {

constexpr char kEsc = '\x1b';

KeyPress plain_key(char c) {
  switch (c) {
    case ' ':
      return {Key::kSpace, c};
    case '[':
      return {Key::kSlower, c};
    case ']':
      return {Key::kFaster, c};
    case 'l':
    case 'L':
      return {Key::kLoop, c};
    case 'g':
    case 'G':
      return {Key::kGoTo, c};
    case 'q':
    case 'Q':
      return {Key::kQuit, c};
    case '\r':
    case '\n':
      return {Key::kEnter, c};
    case '\x7f':
    case '\b':
      return {Key::kBackspace, c};
    default:
      break;
  }
  if (c > ' ' && c < '\x7f') return {Key::kChar, c};
  return {Key::kOther, c};
}

}  // namespace

std::vector<KeyPress> KeyDecoder::feed(std::string_view bytes) {
  std::vector<KeyPress> keys;
  for (char c : bytes) {
    if (pending_.empty()) {
      if (c == kEsc) {
        pending_ += c;
      } else {
        keys.push_back(plain_key(c));
      }
      continue;
    }
    if (pending_.size() == 1) {  // after ESC: a sequence (CSI "[" or SS3 "O"), or not
      if (c == '[' || c == 'O') {
        pending_ += c;
        continue;
      }
      pending_.clear();
      keys.push_back({Key::kEscape, kEsc});
      if (c == kEsc) {
        pending_ += c;
      } else {
        keys.push_back(plain_key(c));
      }
      continue;
    }
    // Inside a sequence: parameters, then a final byte in @..~.
    if (c >= '@' && c <= '~') {
      bool bare = pending_.size() == 2;  // no parameters: ESC [ C, ESC O C
      pending_.clear();
      if (bare && c == 'C') {
        keys.push_back({Key::kRight, 0});
      } else if (bare && c == 'D') {
        keys.push_back({Key::kLeft, 0});
      } else {
        keys.push_back({Key::kOther, 0});
      }
    } else if (pending_.size() < 16) {
      pending_ += c;
    } else {  // not a sequence we know: dropped
      pending_.clear();
      keys.push_back({Key::kOther, 0});
    }
  }
  return keys;
}

std::vector<KeyPress> KeyDecoder::flush() {
  std::vector<KeyPress> keys;
  if (pending_.size() == 1) keys.push_back({Key::kEscape, kEsc});
  if (pending_.size() > 1) keys.push_back({Key::kOther, 0});
  pending_.clear();
  return keys;
}

Transport::Transport(std::span<const uint64_t> times, const TransportOptions& o)
    : times_(times),
      begin_ns_(o.begin_ns),
      end_ns_(std::max(o.begin_ns, o.end_ns)),
      position_ns_(std::clamp(o.start_ns.value_or(o.begin_ns), begin_ns_, end_ns_)),
      speed_(std::clamp(o.speed, kMinSpeed, kMaxSpeed)),
      loop_all_(o.loop),
      paused_(o.paused) {
  HEARTH_CHECK(!times.empty());
  if (o.loop) {
    loop_start_ = begin_ns_;
    loop_end_ = end_ns_;
  }
}

size_t Transport::first_round() const {
  auto it = std::lower_bound(times_.begin(), times_.end(), begin_ns_);
  if (it == times_.end()) --it;
  return static_cast<size_t>(it - times_.begin());
}

size_t Transport::round() const {
  auto it = std::upper_bound(times_.begin(), times_.end(), position_ns_);
  size_t r = it == times_.begin() ? 0 : static_cast<size_t>(it - times_.begin()) - 1;
  return std::max(r, first_round());
}

void Transport::step(int direction) {
  paused_ = true;
  carry_ns_ = 0;
  uint64_t now = times_[round()];
  if (direction > 0) {
    auto next = std::upper_bound(times_.begin(), times_.end(), now);
    if (next == times_.end() || *next > end_ns_) {
      note_ = "at the end";
      return;
    }
    position_ns_ = *next;
  } else {
    auto same = std::lower_bound(times_.begin(), times_.end(), now);
    if (static_cast<size_t>(same - times_.begin()) <= first_round()) {
      note_ = "at the start";
      return;
    }
    position_ns_ = std::max(*(same - 1), begin_ns_);
  }
}

void Transport::go_to(const std::string& typed) {
  double s = -1;
  auto [end, ec] = std::from_chars(typed.data(), typed.data() + typed.size(), s);
  if (typed.empty() || ec != std::errc() || end != typed.data() + typed.size() ||
      !std::isfinite(s) || s < 0) {
    note_ = "not a time: " + typed + " (seconds since the start)";
    return;
  }
  double ns = s * 1e9;
  if (ns < static_cast<double>(begin_ns_)) {
    position_ns_ = begin_ns_;
    note_ = "before the replayed range: moved to its start";
  } else if (ns > static_cast<double>(end_ns_)) {
    position_ns_ = end_ns_;
    note_ = "after the replayed range: moved to its end";
  } else {
    position_ns_ = static_cast<uint64_t>(ns);
  }
  carry_ns_ = 0;
}

void Transport::press(const KeyPress& k) {
  note_.clear();
  if (typing_) {
    switch (k.key) {
      case Key::kEnter: {
        std::string typed = std::move(*typing_);
        typing_.reset();
        go_to(typed);
        return;
      }
      case Key::kEscape:
      case Key::kGoTo:
        typing_.reset();
        return;
      case Key::kBackspace:
        if (!typing_->empty()) typing_->pop_back();
        return;
      case Key::kQuit:
        quit_ = true;
        return;
      case Key::kChar:
        if (typing_->size() < 24) *typing_ += k.ch;
        return;
      default:
        return;
    }
  }
  switch (k.key) {
    case Key::kSpace:
      if (paused_ && position_ns_ >= end_ns_) {  // at the end: from the start again
        position_ns_ = loop_start_ && loop_end_ ? *loop_start_ : begin_ns_;
        carry_ns_ = 0;
      }
      paused_ = !paused_;
      return;
    case Key::kRight:
      step(1);
      return;
    case Key::kLeft:
      step(-1);
      return;
    case Key::kSlower:
      speed_ = std::max(kMinSpeed, speed_ / 2);
      return;
    case Key::kFaster:
      speed_ = std::min(kMaxSpeed, speed_ * 2);
      return;
    case Key::kLoop:
      if (loop_start_ && loop_end_) {
        loop_start_.reset();
        loop_end_.reset();
      } else if (!loop_start_) {
        loop_start_ = times_[round()];
      } else {
        uint64_t here = times_[round()];
        if (here == *loop_start_) {
          note_ = "the loop's end must differ from its start: move, then press l";
          return;
        }
        loop_end_ = std::max(here, *loop_start_);
        loop_start_ = std::min(here, *loop_start_);
      }
      return;
    case Key::kGoTo:
      typing_ = std::string();
      return;
    case Key::kQuit:
      quit_ = true;
      return;
    default:
      return;
  }
}

void Transport::advance(double real_s) {
  if (paused_ || !(real_s > 0)) return;
  double ns = real_s * speed_ * 1e9 + carry_ns_;
  double whole = std::floor(ns);
  carry_ns_ = ns - whole;
  uint64_t by = whole >= 1e18 ? uint64_t{1000000000000000000} : static_cast<uint64_t>(whole);
  uint64_t next = position_ns_ + by;
  if (loop_start_ && loop_end_ && position_ns_ <= *loop_end_ && next > *loop_end_) {
    uint64_t span = *loop_end_ - *loop_start_ + 1;
    next = *loop_start_ + (next - *loop_end_ - 1) % span;
  }
  if (next > end_ns_) {
    next = end_ns_;
    paused_ = true;
    carry_ns_ = 0;
  }
  position_ns_ = next;
}

}  // namespace hearth::replay
