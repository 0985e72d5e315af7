// The Range field of `hearth serve` (RFC 9110 §14): parsing, merging, the limits, and the
// multipart/byteranges body layout.
#include "render/serve/byte_ranges.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hearth::serve {
namespace {

// "0-99,200-299" for a kPartial plan, "whole" or "416" otherwise.
std::string show(const RangePlan& plan) {
  if (plan.answer == RangeAnswer::kWhole) return "whole";
  if (plan.answer == RangeAnswer::kUnsatisfiable) return "416";
  std::string out;
  for (const ByteRange& r : plan.ranges) {
    if (!out.empty()) out += ',';
    out += std::to_string(r.first) + "-" + std::to_string(r.last);
  }
  return out;
}

std::string plan(std::string_view header, uint64_t size = 1000) {
  return show(plan_byte_ranges(header, size));
}

TEST(ServeRange, OneRangeOfEachForm) {
  EXPECT_EQ(plan("bytes=0-99"), "0-99");
  EXPECT_EQ(plan("bytes=990-"), "990-999");
  EXPECT_EQ(plan("bytes=-10"), "990-999");
  EXPECT_EQ(plan("bytes=0-0"), "0-0");
  EXPECT_EQ(plan("bytes=999-999"), "999-999");
  // Past the end: clamped to the file.
  EXPECT_EQ(plan("bytes=500-5000"), "500-999");
  EXPECT_EQ(plan("bytes=-5000"), "0-999");
  EXPECT_EQ(plan("bytes=0-18446744073709551615"), "0-999");
  EXPECT_EQ(plan("bytes=0-99999999999999999999999"), "0-999") << "saturates, not wraps";
  // The unit is case-insensitive; blanks around list commas are fine.
  EXPECT_EQ(plan("Bytes=0-9"), "0-9");
  EXPECT_EQ(plan("BYTES=0-9 , 20-29"), "0-9,20-29");
}

TEST(ServeRange, OverlappingAndAdjacentRangesMerge) {
  EXPECT_EQ(plan("bytes=0-9,10-19"), "0-19") << "adjacent";
  EXPECT_EQ(plan("bytes=0-50,25-75"), "0-75");
  EXPECT_EQ(plan("bytes=500-,0-10,-100"), "0-10,500-999");
  EXPECT_EQ(plan("bytes=20-29,0-9"), "0-9,20-29") << "in file order";
  EXPECT_EQ(plan("bytes=0-0,2-2,1-1"), "0-2");
  // The hostile shape: the same big range many times is one range (when few enough to parse).
  std::string same = "bytes=0-3000000";
  for (int i = 0; i < 15; ++i) same += ",0-3000000";
  EXPECT_EQ(plan(same, 3300000), "0-3000000");
}

TEST(ServeRange, TooManyOrTooComplexIsIgnored) {
  EXPECT_EQ(plan("bytes=0-1,3-4,6-7,9-10"), "0-1,3-4,6-7,9-10") << "4 ranges are served";
  EXPECT_EQ(plan("bytes=0-1,3-4,6-7,9-10,12-13"), "whole") << "5 disjoint ranges";
  // More specs than kMaxRangeSpecs, even if they would merge into one.
  std::string many = "bytes=0-3000000";
  for (size_t i = 1; i < kMaxRangeSpecs + 1; ++i) many += ",0-3000000";
  EXPECT_EQ(plan(many, 3300000), "whole");
  std::string two_hundred = "bytes=0-3000000";
  for (int i = 1; i < 200; ++i) two_hundred += ",0-3000000";
  EXPECT_EQ(plan(two_hundred, 3300000), "whole");
  // A header longer than kMaxRangeHeaderBytes, whatever it holds.
  std::string padded = "bytes=0-9" + std::string(kMaxRangeHeaderBytes, ' ');
  EXPECT_EQ(plan(padded), "whole");
  // Empty list elements do not count as specs.
  EXPECT_EQ(plan("bytes=0-9" + std::string(100, ',')), "0-9");
}

TEST(ServeRange, MalformedIsIgnored) {
  for (std::string_view bad :
       {"",          "bytes",         "bytes=",       "bytes=,",       "bytes=-",
        "bytes=abc", "bytes=5",       "bytes=9-5",    "bytes=0-9,9-5", "bytes=1-2-3",
        "bytes=--5", "bytes=+1-2",    "bytes=0x1-2",  "bytes =0-9",    "bytes= 0 -9",
        "items=0-9", "bytes=0-9;q=1", "bytes=\xff-1", "=0-9",          "bytes=-+5"}) {
    EXPECT_EQ(plan(bad), "whole") << bad;
  }
}

TEST(ServeRange, NothingInsideTheFileIs416) {
  EXPECT_EQ(plan("bytes=1000-"), "416");
  EXPECT_EQ(plan("bytes=1000-2000"), "416");
  EXPECT_EQ(plan("bytes=-0"), "416");
  EXPECT_EQ(plan("bytes=5000-6000,7000-"), "416");
  // One satisfiable range is enough; the others are dropped.
  EXPECT_EQ(plan("bytes=5000-6000,0-4"), "0-4");
  // An empty file: any range is ignored (a 206 cannot describe zero bytes).
  EXPECT_EQ(plan("bytes=0-9", 0), "whole");
  EXPECT_EQ(plan("bytes=-5", 0), "whole");
}

TEST(ServeRange, ContentRangeValue) {
  EXPECT_EQ(content_range_value({0, 99}, 1000), "bytes 0-99/1000");
  EXPECT_EQ(content_range_value({999, 999}, 1000), "bytes 999-999/1000");
}

TEST(ServeRange, MultipartBodyLayout) {
  std::vector<ByteRange> ranges = {{0, 9}, {20, 29}};
  auto pieces = multipart_byteranges(ranges, 1000, "image/svg+xml", "BOUND");
  ASSERT_EQ(pieces.size(), 5u);
  EXPECT_EQ(pieces[0].text,
            "--BOUND\r\nContent-Type: image/svg+xml\r\nContent-Range: bytes 0-9/1000\r\n\r\n");
  EXPECT_EQ(pieces[1].file_offset, 0u);
  EXPECT_EQ(pieces[1].file_length, 10u);
  EXPECT_EQ(
      pieces[2].text,
      "\r\n--BOUND\r\nContent-Type: image/svg+xml\r\nContent-Range: bytes 20-29/1000\r\n\r\n");
  EXPECT_EQ(pieces[3].file_offset, 20u);
  EXPECT_EQ(pieces[3].file_length, 10u);
  EXPECT_EQ(pieces[4].text, "\r\n--BOUND--\r\n");
  uint64_t expected =
      pieces[0].text.size() + 10 + pieces[2].text.size() + 10 + pieces[4].text.size();
  EXPECT_EQ(body_length(pieces), expected);
}

TEST(ServeRange, AnyPlanIsBoundedByTheFile) {
  // Whatever the header, the bytes a plan selects never exceed the file.
  const uint64_t size = 3300000;
  for (std::string_view h : {"bytes=0-3000000,0-3000000,0-3000000", "bytes=0-,0-,0-,-3300000",
                             "bytes=0-1,3-4,6-7,0-", "bytes=-1,-2,-3,-4"}) {
    RangePlan p = plan_byte_ranges(h, size);
    uint64_t total = 0;
    for (const ByteRange& r : p.ranges) {
      ASSERT_LE(r.first, r.last) << h;
      ASSERT_LT(r.last, size) << h;
      total += r.last - r.first + 1;
    }
    EXPECT_LE(total, size) << h;
  }
}

}  // namespace
}  // namespace hearth::serve
