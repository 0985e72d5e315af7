// A strict UTF-8 check for tests, written independently of common/utf8.h (RFC 3629, table 3-7),
// so that a test of the code that uses common/utf8.h does not check it against itself.
#pragma once

#include <cstddef>
#include <string_view>

namespace hearth::test_support {

inline bool strict_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char c = b(0);
    size_t n = c < 0x80                 ? 1
               : c >= 0xc2 && c <= 0xdf ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((b(k) & 0xc0) != 0x80) return false;
    }
    if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) > 0x9f) || (c == 0xf0 && b(1) < 0x90) ||
        (c == 0xf4 && b(1) > 0x8f)) {
      return false;
    }
    i += n;
  }
  return true;
}

}  // namespace hearth::test_support
