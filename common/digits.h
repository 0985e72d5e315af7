// Whole numbers as people read them in charts, tables and summaries.
#pragma once

#include <cstdint>
#include <string>

namespace hearth {

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
