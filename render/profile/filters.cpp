#include "render/profile/filters.h"

#include <algorithm>
#include <vector>

#include "common/digits.h"
#include "common/pool_name.h"
#include "formats/folded.h"

namespace hearth::profile {
namespace {

// perf's "comm-PID/TID": returns the length of "comm", or npos.
size_t perf_comm_length(std::string_view s) {
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == s.size()) return std::string_view::npos;
  for (size_t i = slash + 1; i < s.size(); ++i) {
    if (!is_digit(s[i])) return std::string_view::npos;
  }
  size_t dash = s.rfind('-', slash);
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == slash)
    return std::string_view::npos;
  for (size_t i = dash + 1; i < slash; ++i) {
    if (!is_digit(s[i])) return std::string_view::npos;
  }
  return dash;
}

}  // namespace

bool is_thread_root(std::string_view s) {
  if (s.size() >= 3 && s.front() == '[' && s.back() == ']') {
    // Bracketed names that are modules, not threads (they reach depth 1 with --reverse).
    for (std::string_view m : {"[unknown]", "[vdso]", "[vsyscall]", "[kernel.kallsyms]", "[heap]",
                               "[stack]", "[anon]"}) {
      if (s == m) return false;
    }
    if (s.find("+0x") != std::string_view::npos || s.ends_with(".so]")) return false;
    return s.find(".so.") == std::string_view::npos;
  }
  return perf_comm_length(s) != std::string_view::npos;
}

std::string_view thread_name(std::string_view s) {
  if (auto root = formats::parse_thread_root(s)) return root->name;
  size_t n = perf_comm_length(s);
  return n == std::string_view::npos ? s : s.substr(0, n);
}

std::string thread_group(std::string_view root) {
  std::string group = "[";  // not "[" + string: g++ 12 warns falsely on it (GCC bug 105329)
  group += pool_name(thread_name(root));
  group += ']';
  return group;
}

bool filters_active(const FilterOptions& o) {
  return o.only_threads.has_value() || o.grep.has_value() || o.group_threads;
}

FrameTree apply_filters(const FrameTree& in, const FilterOptions& o) {
  // Patterns run once per distinct name, not per frame.
  std::vector<int8_t> grep_hit;  // per NameId: -1 unknown, 0 no, 1 yes
  if (o.grep) grep_hit.assign(in.name_count(), -1);
  auto name_matches = [&](NameId id) {
    if (grep_hit[id] < 0) grep_hit[id] = o.grep->search(in.name(id));
    return grep_hit[id] == 1;
  };
  // subtree_hit[n]: some frame at or below n matches --grep.
  std::vector<uint8_t> subtree_hit;
  if (o.grep) {
    subtree_hit.assign(in.size(), 0);
    for (size_t i = in.size() - 1; i > 0; --i) {
      if (subtree_hit[i] || name_matches(in.node(static_cast<NodeId>(i)).name)) {
        subtree_hit[i] = 1;
        subtree_hit[in.node(static_cast<NodeId>(i)).parent] = 1;
      }
    }
  }

  FrameTree out(in.merge());
  struct Item {
    NodeId in_node;
    NodeId out_parent;
    bool path_hit;  // some frame above matched --grep
  };
  std::vector<Item> todo;
  // Children are pushed in reverse so they are visited in insertion order (flame charts).
  auto push_children = [&](NodeId n, NodeId out_parent, bool path_hit) {
    size_t mark = todo.size();
    for (NodeId c = in.node(n).first_child; c != kNone; c = in.node(c).next_sibling) {
      todo.push_back({c, out_parent, path_hit});
    }
    std::reverse(todo.begin() + static_cast<long>(mark), todo.end());
  };
  push_children(kRoot, kRoot, false);
  while (!todo.empty()) {
    Item it = todo.back();
    todo.pop_back();
    const Node& n = in.node(it.in_node);
    bool depth1 = n.parent == kRoot;
    std::string_view name = in.name(n.name);
    if (depth1 && o.only_threads && !o.only_threads->search(name)) continue;
    bool hit = it.path_hit || (o.grep && name_matches(n.name));
    if (o.grep && !hit && !subtree_hit[it.in_node]) continue;
    std::string grouped;
    if (depth1 && o.group_threads && is_thread_root(name)) {
      grouped = thread_group(name);
      name = grouped;
    }
    NodeId m = out.child(it.out_parent, out.intern(name));
    if (!o.grep || hit) {
      Count self = in.self(it.in_node);
      if (in.differential()) {
        out.add_self(m, self, in.base_self(it.in_node));
      } else if (self.value != 0) {
        out.add_self(m, self);
      }
    }
    push_children(it.in_node, m, hit);
  }
  out.finalize();
  return out;
}

}  // namespace hearth::profile
