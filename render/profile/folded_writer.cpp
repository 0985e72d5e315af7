#include "render/profile/folded_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "common/atomic_file.h"

namespace hearth::profile {

std::string format_count(double count) {
  char buf[64];
  if (count == std::floor(count) && std::fabs(count) < 1e15) {
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(count));
    return std::string(buf, p);
  }
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, count);  // shortest round-trip form
  return std::string(buf, p);
}

std::string to_folded(const FrameTree& tree) {
  std::string out;
  struct Item {
    NodeId node;
    size_t path_len;  // bytes of `path` before this node's name was appended
  };
  std::string path;
  std::vector<Item> todo;
  std::vector<NodeId> kids;
  auto push_children = [&](NodeId n) {
    kids.clear();
    for (NodeId c = tree.node(n).first_child; c != kNone; c = tree.node(c).next_sibling) {
      kids.push_back(c);
    }
    std::sort(kids.begin(), kids.end(),
              [&](NodeId a, NodeId b) { return tree.name(tree.node(a).name) < tree.name(tree.node(b).name); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) todo.push_back({*it, path.size()});
  };
  push_children(kRoot);
  while (!todo.empty()) {
    Item it = todo.back();
    todo.pop_back();
    path.resize(it.path_len);
    if (!path.empty()) path += ';';
    path += tree.name(tree.node(it.node).name);
    const Node& n = tree.node(it.node);
    bool has_self = n.self != 0 || (tree.differential() && tree.base_self(it.node) != 0);
    if (has_self) {
      out += path;
      if (tree.differential()) {
        out += ' ';
        out += format_count(tree.base_self(it.node));
      }
      out += ' ';
      out += format_count(n.self);
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
