// The profile model: a tree of frames merged from stacks (root first), with counts.
// Memory grows with the number of unique (parent, name) pairs, not with the input size.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace hearth::profile {

using NameId = uint32_t;
using NodeId = uint32_t;
inline constexpr NodeId kNone = UINT32_MAX;
inline constexpr NodeId kRoot = 0;  // the synthetic "all" frame

enum class Merge : uint8_t {
  kAll,        // flamegraph: identical paths merge wherever they occur
  kLastChild,  // flame chart: a frame merges only with its parent's most recent child (time order)
};

struct Node {
  NameId name = 0;
  NodeId parent = kNone;
  NodeId first_child = kNone;  // children in insertion order
  NodeId last_child = kNone;
  NodeId next_sibling = kNone;
  uint32_t child_count = 0;
  double self = 0;   // count of stacks ending here
  double total = 0;  // inclusive count; valid after FrameTree::finalize()
};

class FrameTree {
 public:
  explicit FrameTree(Merge merge = Merge::kAll);
  ~FrameTree();
  FrameTree(FrameTree&&) noexcept;
  FrameTree& operator=(FrameTree&&) noexcept;

  NameId intern(std::string_view name);
  std::string_view name(NameId id) const { return names_[id]; }
  size_t name_count() const { return names_.size(); }

  // Finds or creates PARENT's child called NAME.
  NodeId child(NodeId parent, NameId name);
  // Adds COUNT at NODE (a stack ending there). BASE is the first count of a two-count
  // (differential) line; pass it only for such lines.
  void add_self(NodeId node, double count);
  void add_self(NodeId node, double count, double base);

  // Adds a whole stack, root first.
  void add_stack(std::span<const std::string_view> frames, double count);

  // Computes totals (and base totals). Call once after the last add; adds after it are a bug.
  void finalize();

  const Node& node(NodeId id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  Merge merge() const { return merge_; }
  int depth(NodeId id) const;

  // Differential input: at least one line had two counts.
  bool differential() const { return !base_self_.empty(); }
  double base_self(NodeId id) const { return differential() ? base_self_[id] : 0; }
  double base_total(NodeId id) const { return differential() ? base_total_[id] : 0; }

  double total() const { return nodes_[kRoot].total; }

 private:
  struct NameTable;
  struct ChildTable;

  Merge merge_;
  std::vector<Node> nodes_;
  std::vector<std::string_view> names_;  // views into the arena
  std::vector<double> base_self_;        // empty unless differential()
  std::vector<double> base_total_;
  std::unique_ptr<NameTable> name_table_;
  std::unique_ptr<ChildTable> child_table_;
  bool finalized_ = false;
};

}  // namespace hearth::profile
