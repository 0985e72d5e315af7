// XML text escaping. Input is bytes that should be UTF-8; what isn't (invalid sequences,
// control characters XML 1.0 forbids) becomes U+FFFD, so the output is always well-formed.
#pragma once

#include <string>
#include <string_view>

namespace hearth::svg {

// Appends S escaped for element text and attribute values (& < > " escaped).
void append_escaped(std::string* out, std::string_view s);
std::string escaped(std::string_view s);

}  // namespace hearth::svg
