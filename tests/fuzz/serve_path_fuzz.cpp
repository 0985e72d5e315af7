// Fuzz target: normalize_request_path() on any bytes. Invariants of an accepted path: relative,
// no empty, `.` or `..` component, no NUL, control byte or backslash; and normalizing it again
// (with a leading '/') gives it back unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/serve/safe_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = hearth::serve::normalize_request_path(in);
  if (!r) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  const std::string& p = *r;
  if (!p.empty() && (p.front() == '/' || p.back() == '/')) std::abort();
  size_t start = 0;
  while (start <= p.size() && !p.empty()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string_view part(p.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") std::abort();
    start = end + 1;
  }
  for (char c : p) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') std::abort();
  }
  auto again = hearth::serve::normalize_request_path("/" + p);
  if (!again || *again != p) std::abort();
  return 0;
}
