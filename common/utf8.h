// UTF-8 as hearth treats names: bytes that should be UTF-8. A valid sequence is one character;
// every byte that is not part of one (invalid, overlong, surrogate, truncated) is a character
// of its own, which the SVG writer shows as U+FFFD. Label fitting counts the same way.
#pragma once

#include <cstddef>
#include <string_view>

namespace hearth::utf8 {

// U+FFFD, what stands in for bytes that are not UTF-8.
inline constexpr std::string_view kReplacement = "\xef\xbf\xbd";

// Length of the valid UTF-8 sequence starting at S[I] (1 for ASCII), or 0 if none starts
// there. Overlongs, surrogates, U+FFFE/U+FFFF and values above U+10FFFF are invalid.
inline size_t sequence_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  if (cp == 0xfffe || cp == 0xffff) return 0;
  return n;
}

// Bytes taken by the character at S[I]: the sequence, or 1 for a byte that is not valid.
inline size_t char_bytes(std::string_view s, size_t i) {
  size_t n = sequence_length(s, i);
  return n == 0 ? 1 : n;
}

// Number of characters, counted as above.
inline size_t length(std::string_view s) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); i += char_bytes(s, i)) ++count;
  return count;
}

// The first N characters of S.
inline std::string_view prefix(std::string_view s, size_t n) {
  size_t i = 0;
  for (size_t k = 0; k < n && i < s.size(); ++k) i += char_bytes(s, i);
  return s.substr(0, i);
}

}  // namespace hearth::utf8
