// Figures of a list of measurements, as the summaries quote them.
#pragma once

#include <algorithm>
#include <vector>

namespace hearth {

// The upper median (the middle value, or the higher of the two middle ones); 0 when empty.
inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

inline double max_of(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

}  // namespace hearth
