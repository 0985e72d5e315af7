#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "render/profile/frame_tree.h"

namespace hearth::profile {
namespace {

// PREFIX followed by I (appended: g++ 12 warns falsely about operator+, -Wrestrict).
std::string numbered(std::string prefix, int i) {
  prefix += std::to_string(i);
  return prefix;
}

// Two parents with 10,000 children each, added interleaved: every (parent, name) is found again
// as the same node, and never confused with the other parent's child of the same name.
TEST(FrameTree, WideParentsFindEveryChild) {
  constexpr int kChildren = 10000;
  FrameTree t(Merge::kAll);
  NodeId a = t.child(kRoot, t.intern("a"));
  NodeId b = t.child(kRoot, t.intern("b"));
  std::vector<NodeId> under_a, under_b;
  for (int i = 0; i < kChildren; ++i) {
    NameId n = t.intern(numbered("f", i));
    under_a.push_back(t.child(a, n));
    under_b.push_back(t.child(b, n));
  }
  EXPECT_EQ(t.size(), 3 + 2 * kChildren);
  EXPECT_EQ(t.child_count(a), static_cast<uint32_t>(kChildren));
  for (int i = kChildren - 1; i >= 0; --i) {  // backwards: not just the last child
    NameId n = t.intern(numbered("f", i));
    ASSERT_EQ(t.child(a, n), under_a[i]) << i;
    ASSERT_EQ(t.child(b, n), under_b[i]) << i;
    ASSERT_NE(under_a[i], under_b[i]);
    EXPECT_EQ(t.node(under_a[i]).parent, a);
    EXPECT_EQ(t.name(t.node(under_a[i]).name), numbered("f", i));
  }
  EXPECT_EQ(t.size(), 3 + 2 * kChildren);  // lookups created nothing
  // Children are in insertion order once the tree is finalized.
  t.finalize();
  EXPECT_EQ(t.child_count(a), static_cast<uint32_t>(kChildren));
  int k = 0;
  for (NodeId c = t.node(a).first_child; c != kNone; c = t.node(c).next_sibling) {
    ASSERT_EQ(c, under_a[k++]);
  }
  EXPECT_EQ(k, kChildren);
}

// Counts added through wide parents land on the right nodes and sum up.
TEST(FrameTree, WideParentTotals) {
  FrameTree t(Merge::kAll);
  std::vector<std::string_view> stack(2);
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back(numbered("leaf", i));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5000; ++i) {
      stack[0] = "root";
      stack[1] = names[i];
      t.add_stack(stack, whole_count(i % 7));
    }
  }
  t.finalize();
  ASSERT_EQ(t.size(), 1 + 1 + 5000u);
  NodeId root = t.node(kRoot).first_child;
  uint64_t sum = 0;
  for (NodeId c = t.node(root).first_child; c != kNone; c = t.node(c).next_sibling) {
    int i = std::stoi(std::string(t.name(t.node(c).name)).substr(4));
    EXPECT_EQ(t.self(c).whole, 3u * (i % 7));
    sum += t.self(c).whole;
  }
  EXPECT_EQ(t.total(root).whole, sum);
  EXPECT_EQ(t.total().whole, sum);
}

// A flame chart's tree merges a frame only with its parent's last child, however wide.
TEST(FrameTree, LastChildMergeIgnoresEarlierChildren) {
  FrameTree t(Merge::kLastChild);
  NodeId p = t.child(kRoot, t.intern("p"));
  NodeId last = kNone;
  for (int i = 0; i < 100; ++i) last = t.child(p, t.intern(numbered("c", i)));
  size_t size = t.size();
  EXPECT_EQ(t.child(p, t.intern("c99")), last);
  EXPECT_EQ(t.size(), size);
  t.child(p, t.intern("c5"));  // not the last child: a new node
  EXPECT_EQ(t.size(), size + 1);
}

// intern_all gives the ids that one intern() after another would: across its batches, with
// names repeated inside a batch, names seen before, and the table growing on the way.
TEST(FrameTree, InternAllMatchesOneByOne) {
  FrameTree one(Merge::kAll), all(Merge::kAll);
  std::vector<std::string> storage;
  for (int i = 0; i < 5000; ++i) {
    storage.push_back(numbered(i % 3 ? "ns::f" : "g", (i * 7) % 1300));
  }
  std::vector<std::string_view> names(storage.begin(), storage.end());
  for (size_t from = 0; from < names.size(); from += 700) {
    std::span<const std::string_view> part(names.data() + from,
                                           std::min<size_t>(700, names.size() - from));
    std::vector<NameId> ids(part.size());
    all.intern_all(part, ids);
    for (size_t i = 0; i < part.size(); ++i) {
      ASSERT_EQ(ids[i], one.intern(part[i])) << from + i;
      ASSERT_EQ(all.name(ids[i]), part[i]);
    }
  }
  EXPECT_EQ(all.name_count(), one.name_count());
}

}  // namespace
}  // namespace hearth::profile
