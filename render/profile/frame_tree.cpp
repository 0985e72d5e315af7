#include "render/profile/frame_tree.h"

#include <cstring>
#include <functional>

#include "common/check.h"

namespace hearth::profile {
namespace {

uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

// Interned names: bytes in an arena of large blocks, ids in an open-addressing table.
struct FrameTree::NameTable {
  static constexpr size_t kBlockBytes = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks;
  size_t block_used = kBlockBytes;
  std::vector<uint32_t> slots;  // NameId or kNone; size is a power of two
  std::vector<uint64_t> hashes;  // per NameId
  size_t count = 0;

  NameTable() : slots(1024, kNone) {}

  std::string_view store(std::string_view s) {
    if (s.size() > kBlockBytes / 4) {  // big names get a block of their own
      blocks.emplace_back(new char[s.size()]);
      std::memcpy(blocks.back().get(), s.data(), s.size());
      return {blocks.back().get(), s.size()};
    }
    if (block_used + s.size() > kBlockBytes) {
      blocks.emplace_back(new char[kBlockBytes]);
      block_used = 0;
    }
    char* p = blocks.back().get() + block_used;
    std::memcpy(p, s.data(), s.size());
    block_used += s.size();
    return {p, s.size()};
  }

  void grow(const std::vector<std::string_view>&) {
    std::vector<uint32_t> old(slots.size() * 2, kNone);
    old.swap(slots);
    size_t mask = slots.size() - 1;
    for (uint32_t id : old) {
      if (id == kNone) continue;
      size_t i = hashes[id] & mask;
      while (slots[i] != kNone) i = (i + 1) & mask;
      slots[i] = id;
    }
  }
};

// (parent, name) -> child, for Merge::kAll.
struct FrameTree::ChildTable {
  struct Slot {
    uint64_t key;
    NodeId node;
  };
  std::vector<Slot> slots;
  size_t count = 0;

  ChildTable() : slots(1024, Slot{0, kNone}) {}

  void grow() {
    std::vector<Slot> old(slots.size() * 2, Slot{0, kNone});
    old.swap(slots);
    size_t mask = slots.size() - 1;
    for (const Slot& s : old) {
      if (s.node == kNone) continue;
      size_t i = mix64(s.key) & mask;
      while (slots[i].node != kNone) i = (i + 1) & mask;
      slots[i] = s;
    }
  }
};

FrameTree::FrameTree(Merge merge)
    : merge_(merge),
      name_table_(std::make_unique<NameTable>()),
      child_table_(std::make_unique<ChildTable>()) {
  NameId all = intern("all");
  nodes_.push_back(Node{.name = all});
}

FrameTree::~FrameTree() = default;
FrameTree::FrameTree(FrameTree&&) noexcept = default;
FrameTree& FrameTree::operator=(FrameTree&&) noexcept = default;

NameId FrameTree::intern(std::string_view s) {
  NameTable& t = *name_table_;
  uint64_t h = std::hash<std::string_view>{}(s);
  size_t mask = t.slots.size() - 1;
  size_t i = h & mask;
  while (t.slots[i] != kNone) {
    NameId id = t.slots[i];
    if (t.hashes[id] == h && names_[id] == s) return id;
    i = (i + 1) & mask;
  }
  NameId id = static_cast<NameId>(names_.size());
  names_.push_back(t.store(s));
  t.hashes.push_back(h);
  t.slots[i] = id;
  if (++t.count * 2 > t.slots.size()) t.grow(names_);
  return id;
}

NodeId FrameTree::child(NodeId parent, NameId name_id) {
  HEARTH_CHECK(!finalized_);
  if (merge_ == Merge::kLastChild) {
    NodeId last = nodes_[parent].last_child;
    if (last != kNone && nodes_[last].name == name_id) return last;
  } else {
    ChildTable& t = *child_table_;
    uint64_t key = (uint64_t{parent} << 32) | name_id;
    size_t mask = t.slots.size() - 1;
    size_t i = mix64(key) & mask;
    while (t.slots[i].node != kNone) {
      if (t.slots[i].key == key) return t.slots[i].node;
      i = (i + 1) & mask;
    }
    t.slots[i] = {key, static_cast<NodeId>(nodes_.size())};
    if (++t.count * 2 > t.slots.size()) t.grow();
  }
  NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(Node{.name = name_id, .parent = parent});
  if (!base_self_.empty()) base_self_.push_back(0);
  Node& p = nodes_[parent];
  if (p.last_child == kNone) {
    p.first_child = id;
  } else {
    nodes_[p.last_child].next_sibling = id;
  }
  p.last_child = id;
  return id;
}

void FrameTree::add_self(NodeId node, double count) {
  nodes_[node].self += count;
  // In a differential profile, a one-count line is unchanged: base equals count.
  if (!base_self_.empty()) base_self_[node] += count;
}

void FrameTree::add_self(NodeId node, double count, double base) {
  if (base_self_.empty()) {
    // First two-count line: earlier one-count lines become "unchanged" (base = count).
    base_self_.resize(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) base_self_[i] = nodes_[i].self;
  }
  nodes_[node].self += count;
  base_self_[node] += base;
}

void FrameTree::add_stack(std::span<const std::string_view> frames, double count) {
  NodeId n = kRoot;
  for (std::string_view f : frames) n = child(n, intern(f));
  add_self(n, count);
}

void FrameTree::finalize() {
  HEARTH_CHECK(!finalized_);
  finalized_ = true;
  // Children always have larger ids than their parents: one backward pass sums totals.
  for (Node& n : nodes_) n.total = n.self;
  if (differential()) base_total_ = base_self_;
  for (size_t i = nodes_.size() - 1; i > 0; --i) {
    nodes_[nodes_[i].parent].total += nodes_[i].total;
    if (differential()) base_total_[nodes_[i].parent] += base_total_[i];
  }
  child_table_.reset();  // lookups are over; give the memory back
}

int FrameTree::depth(NodeId id) const {
  int d = 0;
  while (id != kRoot) {
    id = nodes_[id].parent;
    ++d;
  }
  return d;
}

}  // namespace hearth::profile
