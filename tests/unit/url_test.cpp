#include "common/url.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(PercentEncode, KeepsUnreservedAndWhatIsAskedFor) {
  EXPECT_EQ(percent_encode("aZ09-._~"), "aZ09-._~");
  EXPECT_EQ(percent_encode("a b/c?d=e&f"), "a%20b%2Fc%3Fd%3De%26f");
  EXPECT_EQ(percent_encode("reports/a b/", "/"), "reports/a%20b/");
  EXPECT_EQ(percent_encode("[main tid=1]"), "%5Bmain%20tid%3D1%5D");
  EXPECT_EQ(percent_encode("\xc3\xa9\x00"), "%C3%A9");  // bytes, upper-case hex
  EXPECT_EQ(percent_encode(std::string_view("\0", 1)), "%00");
}

}  // namespace
}  // namespace hearth
