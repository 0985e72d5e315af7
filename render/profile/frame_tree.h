// The profile model: a tree of frames merged from stacks (root first), with counts.
// Memory grows with the number of unique (parent, name) pairs, not with the input size.
//
// Counts are whole numbers, exact up to kMaxWholeCount (2^64 - 1), totals included. A tree
// that has been given a fractional count (other tools write them: `a;b 0.5`) keeps all its
// counts as doubles from then on: fractional() says so.
#pragma once

#include <bit>
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

// One count. Make them with whole_count() and fractional_count().
struct Count {
  uint64_t whole = 0;       // the count, exact; 0 when fractional
  double value = 0;         // the count as a double (rounded above 2^53): widths, shares
  bool fractional = false;  // VALUE is the count
};

inline constexpr uint64_t kMaxWholeCount = UINT64_MAX;

inline Count whole_count(uint64_t n) {
  return {n, static_cast<double>(n), false};
}
inline Count fractional_count(double v) {
  return {0, v, true};
}

enum class Merge : uint8_t {
  kAll,        // flamegraph: identical paths merge wherever they occur
  kLastChild,  // flame chart: a frame merges only with its parent's most recent child (time order)
};

struct Node {
  NameId name = 0;
  NodeId parent = kNone;
  // Children in insertion order (which is also increasing id order) once the tree is
  // finalize()d; while it is built, newest first.
  NodeId first_child = kNone;
  NodeId next_sibling = kNone;
  // Counts are apart (FrameTree::self(), total()): 16 bytes a node, 24 with its self count.
};

class FrameTree {
 public:
  explicit FrameTree(Merge merge = Merge::kAll);
  ~FrameTree();
  FrameTree(FrameTree&&) noexcept;
  FrameTree& operator=(FrameTree&&) noexcept;

  NameId intern(std::string_view name);
  // IDS[i] = intern(NAMES[i]) for each i in order (the same ids as one call at a time), with
  // the table's memory fetched for many names at once: a line's frames are looked up together
  // rather than each waiting for the cache misses of the one before.
  void intern_all(std::span<const std::string_view> names, std::span<NameId> ids);
  std::string_view name(NameId id) const { return names_[id]; }
  size_t name_count() const { return names_.size(); }

  // Finds or creates PARENT's child called NAME.
  NodeId child(NodeId parent, NameId name);
  // Adds COUNT at NODE (a stack ending there). BASE is the first count of a two-count
  // (differential) line; pass it only for such lines. A fractional count makes the tree
  // fractional. Whole counts whose sum (each column apart) passes kMaxWholeCount set
  // overflowed(): the counts are wrong from then on, and the caller reports it.
  void add_self(NodeId node, Count count);
  void add_self(NodeId node, Count count, Count base);

  // A hint that the tree will hold about NODES nodes: their memory is set aside (address space;
  // pages are touched only as nodes come), so the node array is not copied while it grows.
  // Best effort: a reservation that fails is ignored and the tree grows as it goes.
  void reserve(size_t nodes);

  // Adds a whole stack, root first.
  void add_stack(std::span<const std::string_view> frames, Count count);

  // A new empty tree of the same kind: same Merge, differential when this one is.
  FrameTree empty_like() const;
  // Whether merge_from(each of OTHERS, in order) gives exactly the tree that adding their
  // stacks after this one's would: Merge::kAll trees, none fractional (double sums depend on
  // the order of adds), no whole column sum past kMaxWholeCount.
  bool can_merge(std::span<const FrameTree* const> others) const;
  // Adds OTHER's stacks after this tree's, as if its lines had been read after this tree's:
  // nodes and names new here are made in OTHER's order, so ids come out as one reader's
  // would. Only when can_merge({&other}) holds. OTHER's node memory is given back to the
  // system as the merge goes (so the two trees are never both whole): afterwards OTHER may
  // only be destroyed.
  void merge_from(FrameTree&& other);

  // Computes totals (and base totals). Call once after the last add; adds after it are a bug.
  void finalize();
  // Node ID is called NAME (from intern()) from now on. After finalize() only, when no lookup
  // by name is left: how a picture shows a frame by another name (a process by its title).
  void rename(NodeId id, NameId name);

  const Node& node(NodeId id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  Merge merge() const { return merge_; }
  int depth(NodeId id) const;
  uint32_t child_count(NodeId id) const;  // walks the children

  Count self(NodeId id) const { return count_of(self_[id]); }
  Count total(NodeId id) const { return count_of(total_[id]); }  // after finalize()
  Count total() const { return total(kRoot); }

  // Differential input: at least one line had two counts.
  bool differential() const { return !base_self_.empty(); }
  Count base_self(NodeId id) const { return count_of(differential() ? base_self_[id] : 0); }
  Count base_total(NodeId id) const { return count_of(differential() ? base_total_[id] : 0); }

  // Some count was fractional: every count is a double.
  bool fractional() const { return fractional_; }
  // The whole counts added up to more than kMaxWholeCount.
  bool overflowed() const { return overflowed_; }

 private:
  struct NameTable;
  struct ChildTable;

  NameId intern_hashed(std::string_view name, uint32_t hash);
  // Makes PARENT's child called NAME, newest in its list, without looking for one: the caller
  // knows there is none. Leaves the index of wide parents as it is.
  NodeId new_child(NodeId parent, NameId name);

  Count count_of(uint64_t bits) const {
    return fractional_ ? fractional_count(std::bit_cast<double>(bits)) : whole_count(bits);
  }
  // *BITS += COUNT; SUM (the column's sum of whole counts) too, noting an overflow.
  void add_to(uint64_t* bits, Count count, uint64_t* sum) {
    if (!count.fractional && __builtin_add_overflow(*sum, count.whole, sum)) overflowed_ = true;
    if (fractional_) {
      *bits = std::bit_cast<uint64_t>(std::bit_cast<double>(*bits) + count.value);
    } else {
      *bits += count.whole;
    }
  }
  void make_fractional();

  bool wide(NodeId id) const {
    return id / 64 < wide_.size() && ((wide_[id / 64] >> (id % 64)) & 1) != 0;
  }

  Merge merge_;
  std::vector<Node> nodes_;
  // Bits by NodeId: the node's children are in child_table_ (Merge::kAll, more than
  // kScanChildren of them). Empty after finalize().
  std::vector<uint64_t> wide_;
  // Counts by NodeId, whole numbers or in a fractional tree the bits of doubles: stacks ending
  // at the node, and inclusive ones (made by finalize()).
  std::vector<uint64_t> self_;
  std::vector<uint64_t> total_;
  std::vector<std::string_view> names_;  // views into the arena
  std::vector<uint64_t> base_self_;  // count bits as in Node; empty unless differential()
  std::vector<uint64_t> base_total_;
  uint64_t whole_sum_ = 0;  // of the whole counts added, NEW's (or the only) column
  uint64_t base_whole_sum_ = 0;
  bool fractional_ = false;
  bool overflowed_ = false;
  std::unique_ptr<NameTable> name_table_;
  std::unique_ptr<ChildTable> child_table_;
  bool finalized_ = false;
};

}  // namespace hearth::profile
