// `hearth serve --token`: comparing, the cookie, the redirect that drops ?token=, the log line.
#include "render/serve/access.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace hearth::serve {
namespace {

using Params = std::multimap<std::string, std::string>;

TEST(ServeAccess, SameSecret) {
  EXPECT_TRUE(same_secret("s3cr3t", "s3cr3t"));
  EXPECT_FALSE(same_secret("s3cr3t", "s3cr3T"));
  EXPECT_FALSE(same_secret("s3cr3t", "s3cr3"));
  EXPECT_FALSE(same_secret("", "x"));
}

TEST(ServeAccess, CookieValue) {
  EXPECT_EQ(cookie_value("hearth_token=abc", "hearth_token"), "abc");
  EXPECT_EQ(cookie_value("a=1; hearth_token=abc; b=2", "hearth_token"), "abc");
  EXPECT_EQ(cookie_value("xhearth_token=abc", "hearth_token"), "");
  EXPECT_EQ(cookie_value("hearth_token", "hearth_token"), "");
  EXPECT_EQ(cookie_value("", "hearth_token"), "");
}

TEST(ServeAccess, LocationDropsTheTokenAndKeepsTheRest) {
  EXPECT_EQ(location_without_param("", true, Params{{"token", "T"}}, "token"), "/");
  EXPECT_EQ(location_without_param("newer", true, Params{{"token", "T"}, {"x", "1"}}, "token"),
            "/newer/?x=1");
  EXPECT_EQ(location_without_param("newer/flame.svg", false,
                                   Params{{"a", "b c"}, {"token", "T"}, {"z", "&=?"}}, "token"),
            "/newer/flame.svg?a=b%20c&z=%26%3D%3F");
  // Every token parameter goes; other repeated names stay.
  EXPECT_EQ(
      location_without_param(
          "r", false, Params{{"token", "T"}, {"token", "U"}, {"x", "1"}, {"x", "2"}}, "token"),
      "/r?x=1&x=2");
  // Path bytes are encoded again: the Location is always a path on this server.
  EXPECT_EQ(location_without_param("a b/%", false, Params{{"token", "T"}}, "token"), "/a%20b/%25");
}

TEST(ServeAccess, LogLineNeverShowsTheToken) {
  EXPECT_EQ(log_line("GET", "/newer/flame.svg", 200, "1234", "s3cr3t"),
            "GET /newer/flame.svg 200 1234");
  EXPECT_EQ(log_line("GET", "/s3cr3t/x-s3cr3t", 404, "10", "s3cr3t"),
            "GET /[token]/x-[token] 404 10");
  EXPECT_EQ(log_line("GET", "/s3cr3t", 404, "10", ""), "GET /s3cr3t 404 10");
  // Control bytes cannot forge a second log line.
  EXPECT_EQ(log_line("GET", "/a\nGET /b 200 1", 400, "-", ""), "GET /a\\x0aGET /b 200 1 400 -");
}

}  // namespace
}  // namespace hearth::serve
