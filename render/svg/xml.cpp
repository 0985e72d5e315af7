#include "render/svg/xml.h"

#include "common/utf8.h"

namespace hearth::svg {
namespace {}  // namespace

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
      case '&':
        out->append("&amp;");
        ++i;
        continue;
      case '<':
        out->append("&lt;");
        ++i;
        continue;
      case '>':
        out->append("&gt;");
        ++i;
        continue;
      case '"':
        out->append("&quot;");
        ++i;
        continue;
      case '\t':
        out->push_back('\t');
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x80) {  // control characters, DEL
      out->append(c == 0x7f ? std::string_view("\x7f", 1) : utf8::kReplacement);
      ++i;
      continue;
    }
    size_t n = utf8::sequence_length(s, i);
    if (n == 0) {
      out->append(utf8::kReplacement);
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
