// Percent-encoding for URLs hearth writes (report links, serve listings and redirects).
#pragma once

#include <string>
#include <string_view>

namespace hearth {

// S with every byte outside RFC 3986's unreserved set (ALPHA DIGIT - . _ ~) and outside KEEP
// written as %XX (upper-case hex). KEEP "/" encodes a path; "" encodes one component.
std::string percent_encode(std::string_view s, std::string_view keep = "");

}  // namespace hearth
