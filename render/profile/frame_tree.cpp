#include "render/profile/frame_tree.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "common/check.h"

namespace hearth::profile {
namespace {

// Parents with more children than this index them in a hash table.
constexpr uint32_t kScanChildren = 16;

uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// A hash of S, 8 bytes at a time (frame names are tens to hundreds of bytes).
uint64_t hash_name(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  if (n > 0) {
    uint64_t w = 0;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data() + s.size() - 8, 8);  // the last 8 bytes, some hashed already
    } else {
      std::memcpy(&w, p, n);
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  }
  return mix64(h);
}

}  // namespace

// Interned names: bytes in an arena of large blocks, each name after its length (4 bytes), and
// an open-addressing table whose slots hold a name's hash (its low 32 bits, which also pick the
// slot), its id and where its bytes are: a probe reads one slot, and the arena only when the
// hashes agree.
struct FrameTree::NameTable {
  static constexpr size_t kBlockBytes = 1 << 20;
  struct Slot {
    uint32_t hash;
    NameId id;  // kNone: empty
    const char* bytes;
  };
  std::vector<std::unique_ptr<char[]>> blocks;
  size_t block_used = kBlockBytes;
  std::vector<Slot> slots;  // size is a power of two
  size_t count = 0;

  NameTable() : slots(1024, Slot{0, kNone, nullptr}) {}

  // S's bytes, after their length.
  const char* store(std::string_view s) {
    const size_t need = 4 + s.size();
    char* p;
    if (need > kBlockBytes / 4) {  // big names get a block of their own
      blocks.emplace_back(new char[need]);
      p = blocks.back().get();
    } else {
      if (block_used + need > kBlockBytes) {
        blocks.emplace_back(new char[kBlockBytes]);
        block_used = 0;
      }
      p = blocks.back().get() + block_used;
      block_used += need;
    }
    HEARTH_CHECK(s.size() < UINT32_MAX);  // names come from lines of at most 256 MiB
    uint32_t len = static_cast<uint32_t>(s.size());
    std::memcpy(p, &len, 4);
    std::memcpy(p + 4, s.data(), s.size());
    return p + 4;
  }

  static bool same(const char* bytes, std::string_view s) {
    uint32_t len;
    std::memcpy(&len, bytes - 4, 4);
    return len == s.size() && std::memcmp(bytes, s.data(), len) == 0;
  }

  void grow() {
    std::vector<Slot> old(slots.size() * 2, Slot{0, kNone, nullptr});
    old.swap(slots);
    size_t mask = slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id == kNone) continue;
      size_t i = slot.hash & mask;
      while (slots[i].id != kNone) i = (i + 1) & mask;
      slots[i] = slot;
    }
  }
};

// (parent, name) -> child, for the children of wide parents (Merge::kAll only).
struct FrameTree::ChildTable {
  struct Slot {
    uint64_t key;
    NodeId node;
  };
  std::vector<Slot> slots;
  size_t count = 0;

  ChildTable() : slots(1024, Slot{0, kNone}) {}

  static uint64_t key_of(NodeId parent, NameId name) { return (uint64_t{parent} << 32) | name; }

  // The slot holding (parent, name), or the empty slot where it would go.
  NodeId* find(NodeId parent, NameId name) {
    uint64_t key = key_of(parent, name);
    size_t mask = slots.size() - 1;
    size_t i = mix64(key) & mask;
    while (slots[i].node != kNone && slots[i].key != key) i = (i + 1) & mask;
    slots[i].key = key;
    return &slots[i].node;
  }

  void insert(NodeId parent, NameId name, NodeId node) {
    *find(parent, name) = node;
    if (++count * 2 > slots.size()) grow();
  }

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
  self_.push_back(0);
}

FrameTree::~FrameTree() = default;
FrameTree::FrameTree(FrameTree&&) noexcept = default;
FrameTree& FrameTree::operator=(FrameTree&&) noexcept = default;

NameId FrameTree::intern(std::string_view s) {
  return intern_hashed(s, static_cast<uint32_t>(hash_name(s)));
}

void FrameTree::intern_all(std::span<const std::string_view> names, std::span<NameId> ids) {
  HEARTH_CHECK(ids.size() >= names.size());
  // Three passes over a batch: hash each name and prefetch its first slot; read those slots and
  // prefetch the bytes of the names they hold; then the lookups proper, in order (new names
  // take their ids in that order), whose memory is mostly in the cache by then.
  constexpr size_t kBatch = 32;
  uint32_t hashes[kBatch];
  const NameTable& t = *name_table_;
  for (size_t from = 0; from < names.size(); from += kBatch) {
    const size_t n = std::min(kBatch, names.size() - from);
    const size_t mask = t.slots.size() - 1;
    for (size_t i = 0; i < n; ++i) {
      hashes[i] = static_cast<uint32_t>(hash_name(names[from + i]));
      __builtin_prefetch(&t.slots[hashes[i] & mask]);
    }
    for (size_t i = 0; i < n; ++i) {
      const NameTable::Slot& slot = t.slots[hashes[i] & mask];
      if (slot.id != kNone && slot.hash == hashes[i]) {
        __builtin_prefetch(slot.bytes - 4);
        __builtin_prefetch(slot.bytes + 60);
      }
    }
    for (size_t i = 0; i < n; ++i) ids[from + i] = intern_hashed(names[from + i], hashes[i]);
  }
}

NameId FrameTree::intern_hashed(std::string_view s, uint32_t h) {
  NameTable& t = *name_table_;
  size_t mask = t.slots.size() - 1;
  size_t i = h & mask;
  for (; t.slots[i].id != kNone; i = (i + 1) & mask) {
    const NameTable::Slot& slot = t.slots[i];
    if (slot.hash == h && NameTable::same(slot.bytes, s)) return slot.id;
  }
  NameId id = static_cast<NameId>(names_.size());
  const char* bytes = t.store(s);
  names_.emplace_back(bytes, s.size());
  t.slots[i] = {h, id, bytes};
  if (++t.count * 2 > t.slots.size()) t.grow();
  return id;
}

NodeId FrameTree::child(NodeId parent, NameId name_id) {
  HEARTH_CHECK(!finalized_);
  const NodeId newest = nodes_[parent].first_child;  // lists are newest first until finalize()
  uint32_t scanned = 0;
  const bool was_wide = merge_ == Merge::kAll && wide(parent);
  if (merge_ == Merge::kLastChild) {
    if (newest != kNone && nodes_[newest].name == name_id) return newest;
  } else if (!was_wide) {
    // Few children (the common case, and always for a node created by this very line):
    // walking the list is cheaper than a table lookup that misses the cache.
    for (NodeId c = newest; c != kNone; c = nodes_[c].next_sibling, ++scanned) {
      if (nodes_[c].name == name_id) return c;
    }
  } else {
    NodeId* slot = child_table_->find(parent, name_id);
    if (*slot != kNone) return *slot;
  }
  NodeId id = new_child(parent, name_id);
  if (was_wide) {
    child_table_->insert(parent, name_id, id);
  } else if (merge_ == Merge::kAll && scanned + 1 > kScanChildren) {
    // The parent just became wide: index all its children from now on.
    if (parent / 64 >= wide_.size()) {
      wide_.resize(std::max<size_t>(parent / 64 + 1, wide_.size() * 2));
    }
    wide_[parent / 64] |= uint64_t{1} << (parent % 64);
    for (NodeId c = id; c != kNone; c = nodes_[c].next_sibling) {
      child_table_->insert(parent, nodes_[c].name, c);
    }
  }
  return id;
}

NodeId FrameTree::new_child(NodeId parent, NameId name_id) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(
      Node{.name = name_id, .parent = parent, .next_sibling = nodes_[parent].first_child});
  self_.push_back(0);
  if (!base_self_.empty()) base_self_.push_back(0);
  nodes_[parent].first_child = id;  // push_back may have moved it
  return id;
}

void FrameTree::reserve(size_t nodes) {
  try {
    nodes_.reserve(nodes);
    self_.reserve(nodes);
    if (differential()) base_self_.reserve(nodes);
  } catch (const std::bad_alloc&) {
    // Only a hint: growing node by node still works (and may still find the memory).
  }
}

void FrameTree::make_fractional() {
  HEARTH_CHECK(!finalized_);
  auto convert = [](uint64_t* bits) {
    *bits = std::bit_cast<uint64_t>(static_cast<double>(*bits));
  };
  for (uint64_t& b : self_) convert(&b);
  for (uint64_t& b : base_self_) convert(&b);
  fractional_ = true;
}

void FrameTree::add_self(NodeId node, Count count) {
  if (count.fractional && !fractional_) make_fractional();
  add_to(&self_[node], count, &whole_sum_);
  // In a differential profile, a one-count line is unchanged: base equals count.
  if (!base_self_.empty()) add_to(&base_self_[node], count, &base_whole_sum_);
}

void FrameTree::add_self(NodeId node, Count count, Count base) {
  if (base_self_.empty()) {
    // First two-count line: earlier one-count lines become "unchanged" (base = count).
    base_self_.resize(nodes_.size());
    base_self_.reserve(self_.capacity());  // as much as reserve() set aside
    base_self_.assign(self_.begin(), self_.end());
    base_whole_sum_ = whole_sum_;
  }
  if ((count.fractional || base.fractional) && !fractional_) make_fractional();
  add_to(&self_[node], count, &whole_sum_);
  add_to(&base_self_[node], base, &base_whole_sum_);
}

void FrameTree::add_stack(std::span<const std::string_view> frames, Count count) {
  NodeId n = kRoot;
  for (std::string_view f : frames) n = child(n, intern(f));
  add_self(n, count);
}

FrameTree FrameTree::empty_like() const {
  FrameTree t(merge_);
  if (differential()) t.add_self(kRoot, {}, {});
  return t;
}

bool FrameTree::can_merge(std::span<const FrameTree* const> others) const {
  if (finalized_ || merge_ != Merge::kAll || fractional_ || overflowed_) return false;
  bool diff = differential();
  uint64_t sum = whole_sum_;
  uint64_t base_sum = diff ? base_whole_sum_ : whole_sum_;
  for (const FrameTree* o : others) {
    if (o->finalized_ || o->merge_ != Merge::kAll || o->fractional_ || o->overflowed_) {
      return false;
    }
    diff = diff || o->differential();
    // A one-count tree's lines count in both columns of a differential one.
    uint64_t o_base = o->differential() ? o->base_whole_sum_ : o->whole_sum_;
    if (__builtin_add_overflow(sum, o->whole_sum_, &sum) ||
        __builtin_add_overflow(base_sum, o_base, &base_sum)) {
      return false;
    }
  }
  return true;
}

namespace {

// Gives the whole pages inside [BEGIN, END) back to the system: they read as zeros after.
// Only for memory nothing reads again (a page partly outside the range is kept).
void release_pages(const void* begin, const void* end) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);  // best effort
}

}  // namespace

void FrameTree::merge_from(FrameTree&& o) {
  const FrameTree* others[] = {&o};
  HEARTH_CHECK(can_merge(others));
  // Names first, in OTHER's order: a name is new where its first node is, so ids match.
  std::vector<NameId> names(o.names_.size());
  for (size_t i = 0; i < o.names_.size(); ++i) names[i] = intern(o.names_[i]);
  std::vector<NodeId> to(o.nodes_.size());  // OTHER's node -> this tree's
  const bool o_diff = o.differential();
  // Node I's counts: added in node order, as a pass over all nodes after the last was made
  // would (child() does not look at counts, so the adds come out the same).
  auto add_counts = [&](size_t i) {
    Count c = whole_count(o.self_[i]);
    if (o_diff) {
      Count b = whole_count(o.base_self_[i]);
      if (c.whole != 0 || b.whole != 0 || !differential()) add_self(to[i], c, b);
    } else if (c.whole != 0) {
      add_self(to[i], c);
    }
  };
  // OTHER's arrays, up to node RELEASED, are given back in steps of kStep nodes.
  constexpr size_t kStep = size_t{1} << 16;
  size_t released = 0;
  auto release_to = [&](size_t n) {
    release_pages(o.nodes_.data() + released, o.nodes_.data() + n);
    release_pages(o.self_.data() + released, o.self_.data() + n);
    if (o_diff) release_pages(o.base_self_.data() + released, o.base_self_.data() + n);
    released = n;
  };
  to[kRoot] = kRoot;
  add_counts(kRoot);
  // A node this merge made has only children that it makes too, one for each of OTHER's
  // children of one node (named apart): those are new without a look. Its child list is not
  // indexed even when long; a later child() on it scans the list and indexes it then.
  const size_t made_from = nodes_.size();
  for (size_t i = 1; i < o.nodes_.size(); ++i) {
    const Node& n = o.nodes_[i];  // parents come before their children
    const NodeId parent = to[n.parent];
    if (parent >= made_from) {
      to[i] = new_child(parent, names[n.name]);
    } else {
      to[i] = child(parent, names[n.name]);
    }
    add_counts(i);
    if (i + 1 - released >= kStep) release_to(i + 1);
  }
}

namespace {

// Totals from self counts: children always have larger ids than their parents, so one
// backward pass sums them. Whole counts cannot overflow here: every total is at most the
// sum add_self checked.
// The same backward pass puts each parent's children in increasing id order (insertion
// order): a child is put first in its parent's list, and a parent's newest child (the head
// of its list while the tree was built) is the first of them that the pass meets.
template <typename T>
void sum_up(std::vector<Node>& nodes, std::vector<uint64_t>& total, std::vector<uint64_t>* base) {
  auto add = [](uint64_t* to, uint64_t from) {
    *to = std::bit_cast<uint64_t>(std::bit_cast<T>(*to) + std::bit_cast<T>(from));
  };
  for (size_t i = nodes.size() - 1; i > 0; --i) {
    const NodeId p = nodes[i].parent;
    const NodeId id = static_cast<NodeId>(i);
    nodes[i].next_sibling = nodes[p].first_child == id ? kNone : nodes[p].first_child;
    nodes[p].first_child = id;
    add(&total[p], total[i]);
    if (base != nullptr) add(&(*base)[p], (*base)[i]);
  }
}

}  // namespace

void FrameTree::finalize() {
  HEARTH_CHECK(!finalized_);
  finalized_ = true;
  total_ = self_;
  std::vector<uint64_t>* base = nullptr;
  if (differential()) {
    base_total_ = base_self_;
    base = &base_total_;
  }
  if (fractional_) {
    sum_up<double>(nodes_, total_, base);
  } else {
    sum_up<uint64_t>(nodes_, total_, base);
  }
  child_table_.reset();  // lookups are over; give the memory back
  wide_ = {};
}

void FrameTree::rename(NodeId id, NameId name) {
  HEARTH_CHECK(finalized_ && id < nodes_.size() && name < names_.size());
  nodes_[id].name = name;
}

uint32_t FrameTree::child_count(NodeId id) const {
  uint32_t n = 0;
  for (NodeId c = nodes_[id].first_child; c != kNone; c = nodes_[c].next_sibling) ++n;
  return n;
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
