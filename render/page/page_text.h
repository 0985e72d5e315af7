// The text of the interactive pages (the heatmap's, the timeline's): HTML-escaped text, the
// embedded scripts, and the pieces of their embedded data (JSON strings safe inside <script>,
// unsigned LEB128 varints, base64) that templates/heatmap.js and templates/timeline.js decode.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace hearth::page {

// The pages are ASCII: Chromium decodes and tokenizes a page with no byte above 0x7f about twice
// as fast (its strings stay 8-bit), which is most of the longest task while a big page loads.

// S with `<`, `>`, `&` and `"` as entities, and every other character above U+007F as a
// numeric character reference (bytes that are not UTF-8: U+FFFD): text or an attribute value.
std::string html_escape(std::string_view s);

// Template NAME (an HTML page) with its KEYS ("{{TITLE}}", ...) replaced by their values, in
// page order: each key is looked for after the previous value, so a value that holds a key (a
// thread or frame name in the data) is never filled. Every key must be there, in that order.
std::string fill_page(std::string_view name,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> keys);

// Template NAME as the content of a <script> element (checked not to close it).
std::string_view script_text(std::string_view name);

// S as an ASCII JSON string that may stand inside <script>: `<`, `>`, `&` and every character
// above U+007F as \u escapes (a surrogate pair above U+FFFF); invalid UTF-8 and control
// characters other than tab as U+FFFD (as the SVG writer shows them).
void append_json_string(std::string* out, std::string_view s);

// V as an unsigned LEB128 varint: 7 bits a byte, low first, the high bit set on all but the last.
void put_varint(std::string* out, uint64_t v);

// BYTES in base64 (RFC 4648, with padding).
void append_base64(std::string* out, std::string_view bytes);

}  // namespace hearth::page
