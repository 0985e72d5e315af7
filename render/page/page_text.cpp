#include "render/page/page_text.h"

#include "common/check.h"
#include "common/utf8.h"
#include "templates/templates.h"

namespace hearth::page {
namespace {

// The code point of the valid UTF-8 sequence of N (2-4) bytes at S[I].
uint32_t code_point(std::string_view s, size_t i, size_t n) {
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  uint32_t cp = b(0) & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (size_t k = 1; k < n; ++k) cp = cp << 6 | (b(k) & 0x3f);
  return cp;
}

void append_hex(std::string* out, uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int d = digits - 1; d >= 0; --d) out->push_back(kHex[(v >> (4 * d)) & 15]);
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {  // a character reference: the page stays ASCII
      const size_t n = utf8::sequence_length(s, i);
      out += "&#x";
      const uint32_t cp = n == 0 ? 0xfffd : code_point(s, i, n);
      append_hex(&out, cp, cp > 0xffff ? 5 : 4);
      out += ';';
      if (n > 1) i += n - 1;
      continue;
    }
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string fill_page(std::string_view name,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> keys) {
  std::string html(templates::get(name));
  size_t pos = 0;
  for (const auto& [key, value] : keys) {
    const size_t at = html.find(key, pos);
    HEARTH_CHECK(at != std::string::npos);
    html.replace(at, key.size(), value);
    pos = at + value.size();
  }
  return html;
}

std::string_view script_text(std::string_view name) {
  std::string_view text = templates::get(name);
  HEARTH_CHECK(text.find("</script") == std::string_view::npos &&
               text.find("</SCRIPT") == std::string_view::npos);
  return text;
}

void append_json_string(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c == '<' || c == '>' || c == '&') {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      ++i;
    } else if (c == '\t') {
      out->append("\\t");
      ++i;
    } else if (c < 0x20) {
      out->append("\\ufffd");
      ++i;
    } else if (const size_t n = utf8::sequence_length(s, i); n == 0) {
      out->append("\\ufffd");
      ++i;
    } else {  // \u escapes (a surrogate pair above U+FFFF): the page stays ASCII
      uint32_t cp = code_point(s, i, n);
      if (cp >= 0x10000) {
        cp -= 0x10000;
        out->append("\\u");
        append_hex(out, 0xd800 + (cp >> 10), 4);
        cp = 0xdc00 + (cp & 0x3ff);
      }
      out->append("\\u");
      append_hex(out, cp, 4);
      i += n;
    }
  }
  out->push_back('"');
}

void put_varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void append_base64(std::string* out, std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  out->reserve(out->size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out->push_back(kAlphabet[(v >> 18) & 63]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back(kAlphabet[v & 63]);
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out->push_back(kAlphabet[(v >> 18) & 63]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

}  // namespace hearth::page
