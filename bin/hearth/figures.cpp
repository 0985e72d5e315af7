#include "bin/hearth/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "render/flame/names.h"
#include "render/profile/folded_reader.h"

namespace hearth::cli {

std::string thousands(uint64_t n) {
  return flame::with_thousands(profile::whole_count(n));
}

std::string plain_number(double v) {
  if (!(std::fabs(v) < 100)) return flame::with_thousands(v);
  int decimals =
      v == 0 ? 1 : std::clamp(2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))), 1, 15);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace hearth::cli
