#include "render/profile/gdb_text.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace hearth::profile {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The digits at the start of S (moved past them); "" when none.
std::string_view take_digits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && is_digit((*s)[n])) ++n;
  std::string_view d = s->substr(0, n);
  s->remove_prefix(n);
  return d;
}

// The number after the first WORD (e.g. "LWP ") in S; "" when none.
std::string_view number_after(std::string_view s, std::string_view word) {
  for (size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    std::string_view rest = s.substr(at + word.size());
    std::string_view d = take_digits(&rest);
    if (!d.empty()) return d;
  }
  return {};
}

// NAME made one folded frame: ';' (the frame separator) becomes ':', control bytes '?'.
std::string as_frame(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return out;
}

// Where NAME ends in a frame's text "NAME (ARGS)…": the first " (" outside <…> and (…) of the
// name itself (a C++ signature's "(int, char*)" follows its name with no blank); npos if none.
size_t name_end(std::string_view s) {
  int angle = 0, paren = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(') {
      if (i > 0 && s[i - 1] == ' ' && angle == 0 && paren == 0) return i - 1;
      ++paren;
    }
    if (c == ')' && paren > 0) --paren;
  }
  return std::string_view::npos;
}

}  // namespace

bool is_gdb_thread_header(std::string_view line) {
  std::string_view s = trim(line);
  if (!s.starts_with("Thread ")) return false;
  s.remove_prefix(7);
  if (take_digits(&s).empty()) return false;
  return s.starts_with(" (") && s.ends_with("):");
}

bool is_gdb_frame(std::string_view line) {
  std::string_view s = line;
  if (!s.starts_with('#')) return false;
  s.remove_prefix(1);
  if (take_digits(&s).empty()) return false;
  return s.starts_with(' ') && !trim(s).empty();
}

std::string gdb_frame_name(std::string_view line) {
  std::string_view s = line;
  s.remove_prefix(1);  // '#'
  take_digits(&s);
  s = trim(s);
  if (s.starts_with("0x")) {
    size_t in = s.find(" in ");
    if (in == std::string_view::npos) return "[unknown]";  // "#0  0x… (bare address)"
    s = trim(s.substr(in + 4));
  }
  size_t end = name_end(s);
  std::string_view name = trim(s.substr(0, end));
  std::string_view rest = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  if (end == std::string_view::npos) {
    // No argument list: the name runs up to " at " / " from ", if any.
    size_t cut = std::min(s.find(" at "), s.find(" from "));
    name = trim(s.substr(0, cut));
    rest = cut == std::string_view::npos ? std::string_view{} : s.substr(cut);
  }
  if (name.empty() || name == "??") {
    size_t from = rest.rfind(" from ");
    if (from == std::string_view::npos) return "[unknown]";
    std::string_view lib = trim(rest.substr(from + 6));
    if (size_t slash = lib.rfind('/'); slash != std::string_view::npos)
      lib.remove_prefix(slash + 1);
    if (lib.empty()) return "[unknown]";
    return "[" + as_frame(lib) + "]";
  }
  return as_frame(name);
}

GdbTextFolder::GdbTextFolder(std::function<void(std::string_view)> emit) : emit_(std::move(emit)) {}

void GdbTextFolder::add_line(std::string_view line) {
  if (is_gdb_thread_header(line)) {
    flush();
    std::string_view s = trim(line);
    std::string_view number = s.substr(7);
    number = take_digits(&number);
    std::string_view tid = number_after(s, "LWP ");
    if (tid.empty()) tid = number_after(s, "process ");
    // The thread's name: the last "…" of the header, as gdb 8 and later print it.
    std::string name;
    size_t close = s.rfind('"');
    if (close != std::string_view::npos && close > 0) {
      size_t open = s.rfind('"', close - 1);
      if (open != std::string_view::npos) name = as_frame(s.substr(open + 1, close - open - 1));
    }
    if (name.empty()) name = tid.empty() ? "thread-" + std::string(number) : "unnamed";
    root_ = "[" + name;
    if (!tid.empty()) root_ += " tid=" + std::string(tid);
    root_ += "]";
    return;
  }
  if (root_.empty() || !is_gdb_frame(line)) return;
  frames_.push_back(gdb_frame_name(line));
}

void GdbTextFolder::finish() {
  flush();
}

void GdbTextFolder::flush() {
  if (!root_.empty() && !frames_.empty()) {
    line_ = root_;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      line_.push_back(';');
      line_ += *it;
    }
    line_ += " 1";
    ++threads_;
    emit_(line_);
  }
  root_.clear();
  frames_.clear();
}

}  // namespace hearth::profile
