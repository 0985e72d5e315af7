#include "render/profile/speedscope_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"
#include "render/profile/folded_writer.h"

namespace hearth::profile {
namespace {

// S as a JSON string, bad UTF-8 replaced (U+FFFD).
void append_json_string(std::string* out, std::string_view s) {
  *out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// NODE's children, in name order (output is deterministic).
std::vector<NodeId> sorted_children(const FrameTree& tree, NodeId node) {
  std::vector<NodeId> kids;
  for (NodeId c = tree.node(node).first_child; c != kNone; c = tree.node(c).next_sibling) {
    kids.push_back(c);
  }
  std::sort(kids.begin(), kids.end(), [&](NodeId a, NodeId b) {
    return tree.name(tree.node(a).name) < tree.name(tree.node(b).name);
  });
  return kids;
}

}  // namespace

bool is_speedscope_path(std::string_view path) {
  return path.ends_with(".speedscope.json");
}

Result<std::string> to_speedscope(const FrameTree& tree) {
  if (tree.differential()) {
    return fail(
        "speedscope holds one column of counts: a differential profile (BASE NEW) cannot be "
        "written as speedscope");
  }
  // Shared frames: one per distinct name, numbered in the order first used.
  std::vector<int64_t> frame_of(tree.name_count(), -1);
  std::string frames;
  size_t frame_count = 0;
  auto frame_index = [&](NameId name) {
    if (frame_of[name] < 0) {
      frames += frame_count == 0 ? "{\"name\":" : ",{\"name\":";
      append_json_string(&frames, tree.name(name));
      frames += '}';
      frame_of[name] = static_cast<int64_t>(frame_count++);
    }
    return frame_of[name];
  };

  std::string profiles;
  struct Item {
    NodeId node;
    size_t depth;  // of the node's parent's path, under the root
  };
  std::vector<Item> todo;
  std::vector<int64_t> path;
  std::string samples, weights;
  bool first_profile = true;
  for (NodeId root : sorted_children(tree, kRoot)) {
    samples.clear();
    weights.clear();
    double end_value = 0;    // a fractional tree's
    uint64_t whole_sum = 0;  // a whole tree's (wraps only past 2^64 samples)
    todo.assign(1, {root, 0});
    while (!todo.empty()) {
      Item it = todo.back();
      todo.pop_back();
      path.resize(it.depth);
      if (it.node != root) path.push_back(frame_index(tree.node(it.node).name));
      std::vector<NodeId> kids = sorted_children(tree, it.node);
      const size_t depth = path.size();
      for (auto k = kids.rbegin(); k != kids.rend(); ++k) todo.push_back({*k, depth});
      Count self = tree.self(it.node);
      if (!(self.value > 0)) continue;
      if (!samples.empty()) {
        samples += ',';
        weights += ',';
      }
      samples += '[';
      for (size_t i = 0; i < path.size(); ++i) {
        if (i > 0) samples += ',';
        samples += std::to_string(path[i]);
      }
      samples += ']';
      weights += format_count(self);
      end_value += self.value;
      whole_sum += self.whole;
    }
    profiles += first_profile ? "" : ",";
    first_profile = false;
    profiles += "{\"type\":\"sampled\",\"name\":";
    append_json_string(&profiles, tree.name(tree.node(root).name));
    profiles += ",\"unit\":\"none\",\"startValue\":0,\"endValue\":";
    profiles += tree.fractional() ? format_count(end_value) : std::to_string(whole_sum);
    profiles += ",\"samples\":[" + samples + "],\"weights\":[" + weights + "]}";
  }
  std::string out =
      "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":"
      "\"hearth\",\"activeProfileIndex\":0,\"shared\":{\"frames\":[";
  out += frames;
  out += "]},\"profiles\":[";
  out += profiles;
  out += "]}\n";
  return out;
}

Result<void> write_speedscope(const FrameTree& tree, const std::string& path) {
  ASSIGN_OR_RETURN(std::string json, to_speedscope(tree));
  return write_file_atomically(path, json);
}

}  // namespace hearth::profile
