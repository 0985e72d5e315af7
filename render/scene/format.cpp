#include "render/scene/format.h"

#include <charconv>
#include <cmath>

namespace hearth::scene {

double round_px(double v) {
  return std::round(v * 10) / 10;
}

std::string format_px(double v) {
  long long tenths = std::llround(v * 10);
  if (tenths == 0) return "0";
  bool neg = tenths < 0;
  unsigned long long a = neg ? -static_cast<unsigned long long>(tenths) : tenths;
  // "-W.T", W and T as printf's %llu writes them: to_chars, without a format to parse (a frame
  // writes several numbers; 30,000 frames, each number once or twice).
  char buf[48];
  char* p = buf;
  if (neg) *p++ = '-';
  p = std::to_chars(p, buf + sizeof buf, a / 10).ptr;
  if (a % 10 != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + a % 10);
  }
  return std::string(buf, p);
}

}  // namespace hearth::scene
