#include "formats/folded.h"

#include <charconv>

namespace hearth::formats {

std::string folded_safe(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string thread_root(std::string_view name, pid_t tid, bool merge_by_name) {
  std::string root = "[";
  root += folded_safe(name);
  if (!merge_by_name) {
    root += " tid=";
    root += std::to_string(tid);
  }
  root += ']';
  return root;
}

std::optional<ThreadRoot> parse_thread_root(std::string_view frame) {
  if (frame.size() < 2 || frame.front() != '[' || frame.back() != ']') return std::nullopt;
  std::string_view inner = frame.substr(1, frame.size() - 2);
  ThreadRoot root{inner, -1};
  const size_t at = inner.rfind(" tid=");
  if (at == std::string_view::npos) return root;
  root.name = inner.substr(0, at);
  std::string_view digits = inner.substr(at + 5);
  int64_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty()) {
    root.tid = v;
  }
  return root;
}

}  // namespace hearth::formats
