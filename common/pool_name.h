// The pool a thread belongs to, from its name: threads whose names differ only in digits are
// one pool ("worker-12", "worker-7" -> "worker-*"). A thread role `COMM:ENTRY` (an unnamed
// thread and its entry function, collectors/stacks/thread_roles.h) keeps ENTRY's digits: a
// function's name is its identity ("app:run_shard2" stays, "pool-3:run_shard2" ->
// "pool-*:run_shard2").
// A role is told by a ':' followed by what starts a C++ name (a letter, '_', '(' or '{').
// Header-only: render/profile and render/charts both use it.
#pragma once

#include <string>
#include <string_view>

namespace hearth {

inline std::string pool_name(std::string_view name) {
  size_t keep_from = name.size();  // digits from here on stay
  const size_t colon = name.find(':');
  if (colon != std::string_view::npos && colon + 1 < name.size()) {
    const char c = name[colon + 1];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '(' || c == '{')
      keep_from = colon;
  }
  std::string out;
  for (size_t i = 0; i < name.size();) {
    if (i < keep_from && name[i] >= '0' && name[i] <= '9') {
      out += '*';
      while (i < keep_from && name[i] >= '0' && name[i] <= '9') ++i;
    } else {
      out += name[i++];
    }
  }
  return out;
}

}  // namespace hearth
