// Whole numbers as people read them in charts, tables and summaries.
#pragma once

#include <cstdint>
#include <string>

namespace hearth {

// '0' to '9' (std::isdigit depends on the locale and takes an int).
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// 1234567 -> "1,234,567".
inline std::string with_thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace hearth
