#include "render/profile/eu_stack_text.h"

#include <utility>

namespace hearth::profile {
namespace {

using text::take_digits;
using text::trim;

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The text of a frame line after its address ("" for a line that is not one).
std::string_view after_address(std::string_view s) {
  if (!s.starts_with('#')) return {};
  s.remove_prefix(1);
  if (take_digits(&s).empty() || !s.starts_with(' ')) return {};
  s = trim(s);
  if (!s.starts_with("0x")) return {};
  s.remove_prefix(2);
  size_t n = 0;
  while (n < s.size() && is_hex_digit(s[n])) ++n;
  if (n == 0 || (n < s.size() && s[n] != ' ' && s[n] != '\t')) return {};
  return s.substr(n);
}

// NAME without an ELF symbol version: "f@GLIBC_2.2.5" and "f@@GLIBC_2.34" -> "f".
std::string_view without_version(std::string_view name) {
  size_t at = name.find('@');
  if (at == 0 || at == std::string_view::npos) return name;
  std::string_view version = name.substr(at + 1);
  if (version.starts_with('@')) version.remove_prefix(1);
  if (version.empty()) return name;
  for (char c : version) {
    bool word = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.';
    if (!word) return name;
  }
  return name.substr(0, at);
}

}  // namespace

bool is_eu_stack_process_header(std::string_view line) {
  std::string_view s = trim(line);
  if (!s.starts_with("PID ")) return false;
  s.remove_prefix(4);
  if (take_digits(&s).empty()) return false;
  return s == " - process" || s == " - core";
}

bool is_eu_stack_thread_header(std::string_view line) {
  std::string_view s = trim(line);
  if (!s.starts_with("TID ")) return false;
  s.remove_prefix(4);
  if (take_digits(&s).empty()) return false;
  return s == ":";
}

bool is_eu_stack_frame(std::string_view line) {
  // The address alone ("#2  0x55…") is a frame: after_address is "" then, so look again.
  if (!after_address(line).empty()) return true;
  std::string_view s = trim(line);
  if (!s.starts_with('#')) return false;
  s.remove_prefix(1);
  if (take_digits(&s).empty() || !s.starts_with(' ')) return false;
  s = trim(s);
  if (!s.starts_with("0x") || s.size() == 2) return false;
  for (char c : s.substr(2)) {
    if (!is_hex_digit(c)) return false;
  }
  return true;
}

std::string eu_stack_frame_name(std::string_view line) {
  std::string_view s = trim(after_address(line));
  // -a: "- 1" after the address of a frame that is not an activation (its pc is a return
  // address); the activation frame has blanks there.
  if (s == "- 1") return "[unknown]";
  if (s.starts_with("- 1 ")) s = trim(s.substr(4));
  // -m: " - MODULE" after the name, or "- MODULE" alone when there is no name.
  std::string_view name = s, module;
  if (s.starts_with("- ")) {
    name = {};
    module = s.substr(2);
  } else if (size_t dash = s.rfind(" - "); dash != std::string_view::npos) {
    name = trim(s.substr(0, dash));
    module = s.substr(dash + 3);
  }
  name = without_version(trim(name));
  if (name.empty() || name == "??") return text::module_frame(module);
  return text::as_frame(name);
}

EuStackFolder::EuStackFolder(std::function<void(std::string_view)> emit)
    : blocks_(std::move(emit)) {}

void EuStackFolder::add_line(std::string_view line) {
  if (is_eu_stack_thread_header(line)) {
    std::string_view s = trim(line).substr(4);
    blocks_.start(text::thread_root({}, take_digits(&s)));
    return;
  }
  if (!blocks_.in_block()) return;
  if (is_eu_stack_frame(line)) {
    blocks_.add_frame(eu_stack_frame_name(line));
    return;
  }
  // -s source and -b build-id lines are indented under their frame; anything else (a process
  // header, a message eu-stack printed, a line of another tool) ends the block.
  if (line.starts_with("    ") && !trim(line).empty()) return;
  blocks_.end();
}

void EuStackFolder::finish() {
  blocks_.finish();
}

}  // namespace hearth::profile
