#include "render/profile/folded_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/atomic_file.h"

namespace hearth::profile {

std::string format_count(double count) {
  // Always plain decimal digits: readers (ours, flamegraph.pl's) accept \d+(\.\d*)? only.
  char buf[512];
  if (count == std::floor(count)) {
    int n = std::snprintf(buf, sizeof buf, "%.0f", count);
    return std::string(buf, static_cast<size_t>(n));
  }
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, count, std::chars_format::fixed);
  if (ec != std::errc()) return "0";  // not finite: cannot come from a parsed file
  return std::string(buf, p);
}

std::string format_count(Count count) {
  if (!count.fractional) return std::to_string(count.whole);
  // A real number keeps its dot, so that it reads back as one ("3.0", not the integer 3).
  std::string s = format_count(count.value);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string to_folded(const FrameTree& tree) {
  std::string out;
  struct Item {
    NodeId node;
    size_t path_len;  // bytes of `path` before this node's name was appended
    bool first;       // a depth-1 frame: no ';' before it (its name may be empty)
  };
  std::string path;
  std::vector<Item> todo;
  std::vector<NodeId> kids;
  auto push_children = [&](NodeId n) {
    kids.clear();
    for (NodeId c = tree.node(n).first_child; c != kNone; c = tree.node(c).next_sibling) {
      kids.push_back(c);
    }
    std::sort(kids.begin(), kids.end(), [&](NodeId a, NodeId b) {
      return tree.name(tree.node(a).name) < tree.name(tree.node(b).name);
    });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      todo.push_back({*it, path.size(), n == kRoot});
    }
  };
  push_children(kRoot);
  while (!todo.empty()) {
    Item it = todo.back();
    todo.pop_back();
    path.resize(it.path_len);
    if (!it.first) path += ';';
    path += tree.name(tree.node(it.node).name);
    Count self = tree.self(it.node);
    bool has_self = self.value != 0 || (tree.differential() && tree.base_self(it.node).value != 0);
    if (has_self) {
      out += path;
      if (tree.differential()) {
        out += ' ';
        out += format_count(tree.base_self(it.node));
      }
      out += ' ';
      out += format_count(self);
      out += '\n';
    }
    push_children(it.node);
  }
  return out;
}

Result<void> write_folded(const FrameTree& tree, const std::string& path) {
  return write_file_atomically(path, to_folded(tree));
}

}  // namespace hearth::profile
