#include "collectors/stacks/thread_roles.h"

#include <algorithm>
#include <array>

namespace hearth::stacks {
namespace {

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool opens(char c) {
  return c == '(' || c == '<' || c == '{' || c == '[';
}
bool closes(char c) {
  return c == ')' || c == '>' || c == '}' || c == ']';
}

// S with the symbols of operator names blanked ("operator<<" -> "operator  "), so that brackets
// count nesting only: '<' and '>' of operator<, operator->, operator>>= are not brackets.
std::string mask_operators(std::string_view s) {
  std::string out(s);
  constexpr std::string_view kOp = "operator";
  for (size_t at = s.find(kOp); at != std::string_view::npos; at = s.find(kOp, at + 1)) {
    if (at > 0 && is_ident(s[at - 1])) continue;
    for (size_t i = at + kOp.size(); i < s.size(); ++i) {
      if (std::string_view("<>=-!+*/%^&|~,").find(s[i]) == std::string_view::npos) break;
      out[i] = ' ';
    }
  }
  return out;
}

bool starts_operator(std::string_view s, size_t i) {
  return s.substr(i).starts_with("operator") && (i == 0 || !is_ident(s[i - 1])) &&
         (i + 8 == s.size() || !is_ident(s[i + 8]));
}

// NAME without a trailing " const", " &", " [clone .cold]" and the like.
std::string_view without_qualifiers(std::string_view name) {
  for (;;) {
    while (name.ends_with(' ')) name.remove_suffix(1);
    if (name.ends_with("]")) {
      size_t clone = name.rfind(" [clone ");
      if (clone != std::string_view::npos) {
        name = name.substr(0, clone);
        continue;
      }
    }
    bool cut = false;
    for (std::string_view q : {" const", " volatile", " &&", " &", " noexcept"}) {
      if (name.ends_with(q)) {
        name.remove_suffix(q.size());
        cut = true;
        break;
      }
    }
    if (!cut) return name;
  }
}

// NAME with every template argument list removed: "std::thread::_State_impl<x>::_M_run" ->
// "std::thread::_State_impl::_M_run".
std::string without_templates(std::string_view name) {
  const std::string masked = mask_operators(name);
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (masked[i] == '<') {
      ++depth;
      continue;
    }
    if (masked[i] == '>' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out += name[i];
  }
  return out;
}

// Thread-start code, as function_of() names it after without_templates().
constexpr std::array<std::string_view, 31> kThreadStart = {
    // glibc
    "clone", "clone3", "__clone", "__clone2", "__clone3", "__clone_internal", "__GI___clone",
    "__GI___clone3", "__GI___clone_internal", "start_thread", "thread_start", "_start",
    "__libc_start_main", "__libc_start_main_impl", "__libc_start_main_alias_2",
    "__libc_start_call_main",
    // libstdc++'s std::thread (execute_native_thread_routine is in libstdc++, the rest is
    // instantiated in the program)
    "execute_native_thread_routine", "std::thread::_State_impl::_M_run",
    "std::thread::_Invoker::_M_invoke", "std::thread::_Invoker::operator()", "std::__invoke_impl",
    "std::__invoke", "std::__invoke_r", "std::invoke",
    // libc++'s std::thread
    "std::__1::__thread_proxy", "std::__1::__invoke", "std::__1::__thread_execute",
    // boost::thread, GLib
    "boost::(anonymous namespace)::thread_proxy", "boost::detail::thread_data::run",
    "g_thread_proxy", "_pthread_start"};

bool unnamed(std::string_view frame) {
  if (frame == "[unknown]" || frame.empty()) return true;
  return frame.front() == '[' && frame.find("+0x") != std::string_view::npos;
}

}  // namespace

std::string function_of(std::string_view frame) {
  for (std::string_view suffix : {"_[i]", "_[j]", "_[k]"}) {
    if (frame.ends_with(suffix)) {
      frame.remove_suffix(suffix.size());
      break;
    }
  }
  std::string_view name = without_qualifiers(frame);
  const std::string masked = mask_operators(name);
  // The parameter list: the bracket group that ends the name, when it is parenthesised.
  if (name.ends_with(')')) {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (closes(masked[i])) ++depth;
      if (opens(masked[i]) && --depth == 0) {
        if (masked[i] == '(' && i > 0) name = name.substr(0, i);
        break;
      }
    }
  }
  // The return type: what comes before the last space outside brackets, unless that space is
  // part of an operator's name (operator new, operator unsigned long).
  size_t start = 0;
  int depth = 0;
  bool in_operator = false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (opens(masked[i])) ++depth;
    if (closes(masked[i]) && depth > 0) --depth;
    if (depth != 0) continue;
    if (starts_operator(masked, i)) in_operator = true;
    if (masked[i] == ' ' && !in_operator) start = i + 1;
  }
  return std::string(name.substr(start));
}

bool is_thread_start(std::string_view frame) {
  if (frame.ends_with("_[k]")) return false;
  const std::string plain = without_templates(function_of(frame));
  return std::find(kThreadStart.begin(), kThreadStart.end(), plain) != kThreadStart.end();
}

std::string entry_function(std::span<const std::string> frames) {
  if (!frames.empty() && frames.front() == "[truncated]") return "";
  for (const std::string& f : frames) {
    if (f.ends_with("_[k]")) break;  // user frames end here
    if (unnamed(f) || is_thread_start(f)) continue;
    std::string name = function_of(f);
    if (!name.empty()) return name;
  }
  return "";
}

std::string thread_role(std::string_view name, std::string_view process_name, bool main_thread,
                        std::string_view entry) {
  std::string role(name);
  if (name != process_name || main_thread || entry.empty()) return role;
  role += ':';
  role += entry;
  return role;
}

void EntryTally::add(pid_t tid, const std::string& entry, uint64_t count) {
  if (entry.empty() || count == 0) return;
  counts_[tid][entry] += count;
}

std::string EntryTally::entry_of(pid_t tid) const {
  auto it = counts_.find(tid);
  if (it == counts_.end()) return "";
  const std::string* best = nullptr;
  uint64_t most = 0;
  for (const auto& [entry, n] : it->second) {  // bytewise order: the first of a tie wins
    if (n > most) best = &entry, most = n;
  }
  return best ? *best : "";
}

}  // namespace hearth::stacks
