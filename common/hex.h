// Addresses and offsets in messages and frame names: "0x" and lower-case hex digits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace hearth {

inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace hearth
