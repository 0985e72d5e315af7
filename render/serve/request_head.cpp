#include "render/serve/request_head.h"

#include <cctype>
#include <cerrno>

namespace hearth::serve {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

}  // namespace

Result<std::string> prepare_request_head(std::string_view head, const HeadLimits& limits) {
  if (head.size() > limits.max_bytes) return fail("the request head is too large", E2BIG);
  std::string out;
  out.reserve(head.size() + 32);
  size_t lines = 0, pos = 0;
  for (bool request_line = true; pos < head.size(); request_line = false) {
    size_t nl = head.find('\n', pos);
    size_t end = nl == std::string_view::npos ? head.size() : nl + 1;
    std::string_view line = head.substr(pos, end - pos);
    pos = end;
    if (line.size() > limits.max_line_bytes)
      return fail("a line of the request head is too long", E2BIG);
    bool blank = line == "\r\n";
    if (!blank && ++lines > limits.max_lines) return fail("too many header lines", E2BIG);
    // The first line is the request line (httplib reads it as such, whatever it holds).
    if (!request_line && !blank) {
      // httplib's header name: everything before the first ':'.
      size_t colon = line.find(':');
      std::string_view name = line.substr(0, colon);
      if (colon != std::string_view::npos && iequals(name, "Range")) {
        out += kRangeField;
        out += line.substr(colon);
        continue;
      }
      if (colon != std::string_view::npos && iequals(name, kRangeField)) continue;
    }
    out += line;
  }
  return out;
}

}  // namespace hearth::serve
