#include "render/profile/gdb_text.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace hearth::profile {
namespace {

using text::as_frame;
using text::take_digits;
using text::trim;

// The number after the first WORD (e.g. "LWP ") in S; "" when none.
std::string_view number_after(std::string_view s, std::string_view word) {
  for (size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    std::string_view rest = s.substr(at + word.size());
    std::string_view d = take_digits(&rest);
    if (!d.empty()) return d;
  }
  return {};
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
    return text::module_frame(rest.substr(from + 6));
  }
  return as_frame(name);
}

GdbTextFolder::GdbTextFolder(std::function<void(std::string_view)> emit)
    : blocks_(std::move(emit)) {}

void GdbTextFolder::add_line(std::string_view line) {
  if (is_gdb_thread_header(line)) {
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
      if (open != std::string_view::npos) name = std::string(s.substr(open + 1, close - open - 1));
    }
    if (name.empty() && tid.empty()) name = "thread-" + std::string(number);
    blocks_.start(text::thread_root(name, tid));
    return;
  }
  if (!blocks_.in_block() || !is_gdb_frame(line)) return;
  blocks_.add_frame(gdb_frame_name(line));
}

void GdbTextFolder::finish() {
  blocks_.finish();
}

}  // namespace hearth::profile
