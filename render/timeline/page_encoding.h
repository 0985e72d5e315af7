// The pieces of a page's embedded data: JSON strings safe inside <script>, unsigned LEB128
// varints, base64. What templates/timeline.js decodes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::timeline {

// S as a JSON string that may stand inside <script>: `<`, `>`, `&` as \u escapes; invalid UTF-8
// and control characters other than tab as U+FFFD (as the SVG writer shows them).
void append_json_string(std::string* out, std::string_view s);

// V as an unsigned LEB128 varint: 7 bits a byte, low first, the high bit set on all but the last.
void put_varint(std::string* out, uint64_t v);

// BYTES in base64 (RFC 4648, with padding).
void append_base64(std::string* out, std::string_view bytes);

}  // namespace hearth::timeline
