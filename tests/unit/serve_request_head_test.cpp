// The request head `hearth serve` hands to cpp-httplib: limits, and Range renamed away from
// httplib's own range code.
#include "render/serve/request_head.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace hearth::serve {
namespace {

const HeadLimits kLimits;

TEST(ServeRequestHead, OrdinaryHeadsPassByteForByte) {
  std::string head =
      "GET /a/flame.svg?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept-Encoding: gzip, br\r\n"
      "Cookie: hearth_token=abc; other=Range: bytes=0-1\r\nX-Ranged: 1\r\n\r\n";
  EXPECT_EQ(prepare_request_head(head, kLimits).value(), head);
}

TEST(ServeRequestHead, RangeFieldsAreRenamed) {
  std::string head = "GET / HTTP/1.1\r\nRange: bytes=0-99\r\nhost: x\r\n\r\n";
  EXPECT_EQ(prepare_request_head(head, kLimits).value(),
            "GET / HTTP/1.1\r\nX-Hearth-Range: bytes=0-99\r\nhost: x\r\n\r\n");
  // Any case (httplib compares names without case); every occurrence.
  EXPECT_EQ(prepare_request_head("GET / HTTP/1.1\r\nrAnGe:bytes=1-2\r\nRANGE: x\r\n\r\n", kLimits)
                .value(),
            "GET / HTTP/1.1\r\nX-Hearth-Range:bytes=1-2\r\nX-Hearth-Range: x\r\n\r\n");
  // "Range " (a blank before the colon) is another name to httplib too: left alone.
  std::string other = "GET / HTTP/1.1\r\nRange : bytes=0-1\r\n\r\n";
  EXPECT_EQ(prepare_request_head(other, kLimits).value(), other);
  // The request line is never a header, even if it looks like one.
  std::string line = "Range: / HTTP/1.1\r\n\r\n";
  EXPECT_EQ(prepare_request_head(line, kLimits).value(), line);
  // Even a blank first line is the request line to httplib (a 400): what follows is a header.
  EXPECT_EQ(prepare_request_head("\r\nrange:\nGET / HTTP/1.1\r\n\r\n", kLimits).value(),
            "\r\nX-Hearth-Range:\nGET / HTTP/1.1\r\n\r\n");
}

TEST(ServeRequestHead, AClientsOwnRenamedFieldIsDropped) {
  EXPECT_EQ(prepare_request_head("GET / HTTP/1.1\r\nx-hearth-range: bytes=0-1\r\nHost: x\r\n\r\n",
                                 kLimits)
                .value(),
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
}

TEST(ServeRequestHead, LimitsHold) {
  HeadLimits small;
  small.max_bytes = 100;
  small.max_line_bytes = 40;
  small.max_lines = 3;
  EXPECT_TRUE(prepare_request_head("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n", small).has_value());
  auto lines = prepare_request_head("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small);
  ASSERT_FALSE(lines.has_value());
  EXPECT_EQ(lines.error().errnum, E2BIG);
  auto line =
      prepare_request_head("GET / HTTP/1.1\r\nA: " + std::string(40, 'a') + "\r\n\r\n", small);
  ASSERT_FALSE(line.has_value());
  EXPECT_EQ(line.error().errnum, E2BIG);
  auto bytes = prepare_request_head("GET /" + std::string(120, 'a') + " HTTP/1.1\r\n\r\n", small);
  ASSERT_FALSE(bytes.has_value());
  EXPECT_EQ(bytes.error().errnum, E2BIG);
  // The defaults: 100 header lines pass, 101 do not.
  std::string head = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 100; ++i) head += "a:b\r\n";
  EXPECT_TRUE(prepare_request_head(head + "\r\n", kLimits).has_value());
  EXPECT_FALSE(prepare_request_head(head + "a:b\r\n\r\n", kLimits).has_value());
}

}  // namespace
}  // namespace hearth::serve
