#include "render/svg/xml.h"

namespace hearth::svg {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

// Length of the valid UTF-8 sequence at S[I], or 0 if invalid (overlongs, surrogates and
// values above U+10FFFF are invalid).
size_t utf8_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
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

}  // namespace

void append_escaped(std::string* out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // Fast path: a run of plain ASCII.
    size_t j = i;
    while (j < s.size()) {
      unsigned char c = static_cast<unsigned char>(s[j]);
      if (c < 0x20 || c >= 0x7f || c == '&' || c == '<' || c == '>' || c == '"') break;
      ++j;
    }
    out->append(s.data() + i, j - i);
    if (j == s.size()) return;
    i = j;
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out->append("&amp;"); ++i; continue;
      case '<': out->append("&lt;"); ++i; continue;
      case '>': out->append("&gt;"); ++i; continue;
      case '"': out->append("&quot;"); ++i; continue;
      case '\t': out->push_back('\t'); ++i; continue;
      default: break;
    }
    if (c < 0x80) {  // control characters, DEL
      out->append(c == 0x7f ? std::string_view("\x7f", 1) : kReplacement);
      ++i;
      continue;
    }
    size_t n = utf8_length(s, i);
    if (n == 0) {
      out->append(kReplacement);
      ++i;
    } else {
      out->append(s.data() + i, n);
      i += n;
    }
  }
}

std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_escaped(&out, s);
  return out;
}

}  // namespace hearth::svg
