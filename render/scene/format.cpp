#include "render/scene/format.h"

#include <cmath>
#include <cstdio>

namespace hearth::scene {

double round_px(double v) {
  return std::round(v * 10) / 10;
}

std::string format_px(double v) {
  char buf[48];
  long long tenths = std::llround(v * 10);
  if (tenths == 0) return "0";
  bool neg = tenths < 0;
  unsigned long long a = neg ? -static_cast<unsigned long long>(tenths) : tenths;
  int n;
  if (a % 10 == 0) {
    n = std::snprintf(buf, sizeof buf, "%s%llu", neg ? "-" : "", a / 10);
  } else {
    n = std::snprintf(buf, sizeof buf, "%s%llu.%llu", neg ? "-" : "", a / 10, a % 10);
  }
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace hearth::scene
