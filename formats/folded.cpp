#include "formats/folded.h"

#include <charconv>
#include <utility>

namespace hearth::formats {

std::string folded_safe(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

namespace {

std::string id_root(std::string_view name, std::string_view key, pid_t id, bool merge_by_name) {
  std::string root = "[";
  root += folded_safe(name);
  if (!merge_by_name) {
    root += key;
    root += std::to_string(id);
  }
  root += ']';
  return root;
}

}  // namespace

std::string thread_root(std::string_view name, pid_t tid, bool merge_by_name) {
  return id_root(name, " tid=", tid, merge_by_name);
}

std::string process_root(std::string_view name, pid_t pid, bool merge_by_name) {
  return id_root(name, " pid=", pid, merge_by_name);
}

namespace {

// "[NAME<key>ID]" -> NAME and ID (-1 when the id is missing or not a number); nullopt when FRAME
// is not bracketed.
std::optional<std::pair<std::string_view, int64_t>> parse_id_root(std::string_view frame,
                                                                  std::string_view key) {
  if (frame.size() < 2 || frame.front() != '[' || frame.back() != ']') return std::nullopt;
  std::string_view inner = frame.substr(1, frame.size() - 2);
  const size_t at = inner.rfind(key);
  if (at == std::string_view::npos) return std::pair{inner, int64_t{-1}};
  std::string_view digits = inner.substr(at + key.size());
  int64_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty()) {
    return std::pair{inner.substr(0, at), v};
  }
  return std::pair{inner.substr(0, at), int64_t{-1}};
}

}  // namespace

std::optional<ThreadRoot> parse_thread_root(std::string_view frame) {
  auto parsed = parse_id_root(frame, " tid=");
  if (!parsed) return std::nullopt;
  return ThreadRoot{parsed->first, parsed->second};
}

std::optional<ProcessRoot> parse_process_root(std::string_view frame) {
  auto parsed = parse_id_root(frame, " pid=");
  if (!parsed || parsed->second < 0) return std::nullopt;
  return ProcessRoot{parsed->first, parsed->second};
}

}  // namespace hearth::formats
