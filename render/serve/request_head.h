// A request head as `hearth serve` hands it to cpp-httplib: checked against limits and with
// its Range fields renamed, so that httplib's own Range code never runs (connection.h says
// why). Pure text in, text out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth::serve {

// The request's Range field, as httplib sees it (a client's own field of this name is dropped).
inline constexpr const char* kRangeField = "X-Hearth-Range";

struct HeadLimits {
  size_t max_bytes = 32 * 1024;      // request line, header lines and the blank line
  size_t max_line_bytes = 8 * 1024;  // any one line, CRLF included (httplib's own line limit)
  size_t max_lines = 101;            // the request line and 100 header lines
};

// HEAD (the request line through the blank line, "\r\n\r\n" included) as httplib is to parse
// it: every header line whose name is `Range` (case-insensitive, as httplib compares names)
// renamed kRangeField, every client line named kRangeField dropped, the rest byte for byte.
// Fails (errnum E2BIG) when HEAD breaks LIMITS.
Result<std::string> prepare_request_head(std::string_view head, const HeadLimits& limits);

}  // namespace hearth::serve
