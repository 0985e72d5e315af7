// Decodes an MMV file's layout from a copy of its bytes. Every count and offset in the file is
// untrusted: each is checked with overflow-safe arithmetic against the bytes given before it
// is used, nothing is allocated from a count that was not checked against the size, and no
// read goes past the bytes. A damaged file gives an error, never a crash.
#pragma once

#include <cstdint>
#include <string_view>

#include "collectors/mmv/mmv_model.h"
#include "common/result.h"

namespace hearth::mmv {

inline constexpr size_t kHeaderSize = 40;

struct HeaderFields {
  int version = 0;
  uint64_t g1 = 0;
  uint64_t g2 = 0;
};

// The magic and generations; error when BYTES do not start with an MMV header.
Result<HeaderFields> read_header(std::string_view bytes);
// True when a writer has finished initialising the file: g1 == g2 != 0.
inline bool ready(const HeaderFields& h) {
  return h.g1 == h.g2 && h.g1 != 0;
}

// BYTES: the whole file. Errors name the problem ("values section [off, +len) is past the end
// of the file (N bytes)"), without the path. A file not ready (see ready()) is an error with
// errnum EAGAIN: try again later.
Result<Layout> parse_layout(std::string_view bytes);

}  // namespace hearth::mmv
