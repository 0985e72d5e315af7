// The strict field helpers shared by the sched TSV and MMV series readers (common/text_fields.h).
#include "common/text_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace hearth::text {
namespace {

TEST(TextFields, ShownQuotesCutsAndMasks) {
  EXPECT_EQ(shown("abc"), "`abc`");
  EXPECT_EQ(shown(std::string_view("a\tb\x1b[31m\xc3\xa9", 10)), "`a?b?[31m??`");
  EXPECT_EQ(shown(std::string(50, 'x')), "`" + std::string(40, 'x') + "...`");
  EXPECT_EQ(shown(""), "``");
}

TEST(TextFields, SplitTabsKeepsEmptyFields) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(split_tabs(""), V{""});
  EXPECT_EQ(split_tabs("a"), V{"a"});
  EXPECT_EQ(split_tabs("a\t\tb\t"), (V{"a", "", "b", ""}));
  EXPECT_EQ(split_tabs(" a \tb"), (V{" a ", "b"}));
}

TEST(TextFields, ParseU64IsStrict) {
  uint64_t v = 7;
  EXPECT_TRUE(parse_u64("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_u64("18446744073709551615", &v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  for (const char* bad : {"", "18446744073709551616", "-1", "+1", " 1", "1 ", "1e3", "0x10",
                          "999999999999999999999"}) {
    EXPECT_FALSE(parse_u64(bad, &v)) << bad;
  }
}

TEST(TextFields, ParseI64HonoursItsBounds) {
  int64_t v = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(parse_i64("-9223372036854775808", kMin, kMax, &v));
  EXPECT_EQ(v, kMin);
  EXPECT_TRUE(parse_i64("9223372036854775807", kMin, kMax, &v));
  EXPECT_EQ(v, kMax);
  EXPECT_FALSE(parse_i64("9223372036854775808", kMin, kMax, &v));
  EXPECT_FALSE(parse_i64("-9223372036854775809", kMin, kMax, &v));
  EXPECT_TRUE(parse_i64("-0", kMin, kMax, &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_i64("-128", -128, 127, &v));
  EXPECT_EQ(v, -128);
  EXPECT_FALSE(parse_i64("-129", -128, 127, &v));
  EXPECT_FALSE(parse_i64("128", -128, 127, &v));
  EXPECT_FALSE(parse_i64("-", -128, 127, &v));
  EXPECT_FALSE(parse_i64("--1", -128, 127, &v));
}

}  // namespace
}  // namespace hearth::text
