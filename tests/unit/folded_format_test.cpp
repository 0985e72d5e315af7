// formats/folded.h: the rules the stack sampler writes folded lines by and the readers read
// them back with.
#include "formats/folded.h"

#include <gtest/gtest.h>

namespace hearth::formats {
namespace {

TEST(FoldedFormat, FrameNamesCannotSplitALineOrAFrame) {
  EXPECT_EQ(folded_safe("std::map<int;int>::find"), "std::map<int:int>::find");
  const std::string controls = std::string("a\nb\tc\x7f") + "d\r" + std::string(1, '\0');
  EXPECT_EQ(folded_safe(controls), "a?b?c?d??");
  EXPECT_EQ(folded_safe("plain_[k] (ok) ü"), "plain_[k] (ok) ü");  // UTF-8 bytes stay
}

TEST(FoldedFormat, ThreadRootsReadBackAsWritten) {
  EXPECT_EQ(thread_root("worker-12", 4213, false), "[worker-12 tid=4213]");
  EXPECT_EQ(thread_root("worker-12", 4213, true), "[worker-12]");
  EXPECT_EQ(thread_root("a;b\n", 7, false), "[a:b? tid=7]");
  for (bool merged : {false, true}) {
    for (std::string_view name : {"mariadbd:handle_one_connection", "x tid=3", "", "[odd]"}) {
      // A merged root of a name that itself ends in " tid=N" reads back as that thread: the
      // one ambiguity of the format.
      if (merged && name == "x tid=3") continue;
      const std::string root = thread_root(name, 27618, merged);
      auto parsed = parse_thread_root(root);
      ASSERT_TRUE(parsed) << root;
      EXPECT_EQ(parsed->name, name) << root;
      EXPECT_EQ(parsed->tid, merged ? -1 : 27618) << root;
    }
  }
}

TEST(FoldedFormat, OtherFramesAreNotThreadRoots) {
  EXPECT_FALSE(parse_thread_root("main"));
  EXPECT_FALSE(parse_thread_root("["));
  EXPECT_FALSE(parse_thread_root("java-4242/4243"));
  auto bad_tid = parse_thread_root("[w tid=12x]");  // a thread, tid unknown
  ASSERT_TRUE(bad_tid);
  EXPECT_EQ(bad_tid->name, "w");
  EXPECT_EQ(bad_tid->tid, -1);
  auto empty_tid = parse_thread_root("[w tid=]");
  ASSERT_TRUE(empty_tid);
  EXPECT_EQ(empty_tid->tid, -1);
}

}  // namespace
}  // namespace hearth::formats
