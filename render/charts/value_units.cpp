#include "render/charts/value_units.h"

#include <cmath>
#include <cstdio>

namespace hearth::charts {
namespace {

constexpr std::string_view kSpace[] = {"byte",  "Kbyte", "Mbyte", "Gbyte", "Tbyte",
                                       "Pbyte", "Ebyte", "Zbyte", "Ybyte"};
constexpr std::string_view kTime[] = {"nanosec", "microsec", "millisec", "sec", "min", "hour"};
constexpr double kTimeSeconds[] = {1e-9, 1e-6, 1e-3, 1, 60, 3600};

// Seconds one TIME unit stands for; 0: not a time unit.
double time_unit(std::string_view s) {
  for (size_t i = 0; i < std::size(kTime); ++i) {
    if (s == kTime[i]) return kTimeSeconds[i];
  }
  return 0;
}

// Trims trailing zeros of a %.*f rendering: "1.50" -> "1.5", "2.00" -> "2".
std::string trim(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// 3 significant digits at most, no exponent: 0.0123, 1.5, 12.3, 123.
std::string number3(double v) {
  char buf[64];
  double a = std::fabs(v);
  int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = trim(buf);
  return s == "-0" ? "0" : s;
}

}  // namespace

ValueUnit parse_pcp_units(std::string_view u) {
  ValueUnit out;
  if (u.empty()) return out;
  std::string_view num = u, den;
  if (size_t slash = u.find(" / "); slash != std::string_view::npos) {
    num = u.substr(0, slash);
    den = u.substr(slash + 3);
  }
  double per = 1;  // the denominator's seconds
  if (!den.empty()) {
    per = time_unit(den);
    if (per == 0) return {BaseUnit::kOther, 1, false, std::string(u)};
  }
  for (size_t i = 0; i < std::size(kSpace); ++i) {
    if (num == kSpace[i]) {
      out.base = BaseUnit::kBytes;
      out.factor = std::pow(1024.0, static_cast<double>(i));
    }
  }
  if (double t = time_unit(num); t > 0) {
    out.base = den.empty() ? BaseUnit::kSeconds : BaseUnit::kPercent;
    out.factor = t;
  } else if (num == "count" || num == "1") {
    out.base = BaseUnit::kNumber;
  } else if (num.starts_with("count x 10^")) {
    int e = 0;
    if (std::sscanf(std::string(num.substr(11)).c_str(), "%d", &e) != 1 || e < -30 || e > 30) {
      return {BaseUnit::kOther, 1, false, std::string(u)};
    }
    out.factor = std::pow(10.0, e);
  } else if (out.base != BaseUnit::kBytes) {
    return {BaseUnit::kOther, 1, false, std::string(u)};
  }
  if (!den.empty()) {
    out.factor /= per;
    out.per_second = out.base != BaseUnit::kPercent;
  }
  return out;
}

ValueUnit rate_unit(const ValueUnit& unit) {
  ValueUnit r = unit;
  if (unit.per_second || unit.base == BaseUnit::kPercent) {
    return {BaseUnit::kOther, unit.factor, true, "(rate of a rate)"};
  }
  if (unit.base == BaseUnit::kSeconds) {
    r.base = BaseUnit::kPercent;  // seconds per second: the share of time
    return r;
  }
  r.per_second = true;
  return r;
}

std::string format_value(double v, const ValueUnit& u) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  std::string s;
  double a = std::fabs(v);
  switch (u.base) {
    case BaseUnit::kBytes: {
      static constexpr const char* kPrefix[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
      size_t p = 0;
      while (p + 1 < std::size(kPrefix) && a >= 1024 * 0.9995) a /= 1024, v /= 1024, ++p;
      s = number3(v) + " " + kPrefix[p];
      break;
    }
    case BaseUnit::kSeconds: {
      static constexpr std::pair<double, const char*> kScale[] = {
          {1, "s"}, {1e-3, "ms"}, {1e-6, "\xc2\xb5s"}, {1e-9, "ns"}};
      size_t i = 0;
      while (i + 1 < std::size(kScale) && a != 0 && a < kScale[i].first * 0.9995) ++i;
      s = number3(v / kScale[i].first) + " " + kScale[i].second;
      break;
    }
    case BaseUnit::kPercent:
      return number3(v * 100) + "%";
    case BaseUnit::kNumber:
    case BaseUnit::kOther: {
      static constexpr std::pair<double, const char*> kSi[] = {
          {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
      s = number3(v);
      for (auto [scale, prefix] : kSi) {
        if (a >= scale * 0.9995) {
          s = number3(v / scale) + prefix;
          break;
        }
      }
      if (u.base == BaseUnit::kOther) s += " " + u.other;
      if (u.per_second && u.base == BaseUnit::kNumber) s += "/s";
      return s;
    }
  }
  if (u.per_second) s += "/s";
  return s;
}

std::vector<double> value_ticks(double lo, double hi, const ValueUnit& unit, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || max_ticks < 1) return {0, 1};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.5;
    lo -= lo == 0 ? 0 : pad, hi += pad;
  }
  double range = hi - lo;
  // Bytes step in powers of 1024 × {1, 2, 5, 10, …}; everything else in powers of 10.
  double base = 1;
  if (unit.base == BaseUnit::kBytes) {
    while (range / (base * 1024) >= 1) base *= 1024;
  }
  double step = 0;
  double mag = base * std::pow(10.0, std::floor(std::log10(range / base / max_ticks)));
  for (int guard = 0; step == 0 && guard < 8; ++guard, mag *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (range / (m * mag) <= max_ticks) {
        step = m * mag;
        break;
      }
    }
  }
  if (step == 0 || !std::isfinite(step)) return {lo, hi};
  std::vector<double> ticks;
  double first = std::floor(lo / step + 1e-9) * step;
  for (int i = 0; i <= max_ticks + 2; ++i) {
    double t = first + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  return ticks;
}

}  // namespace hearth::charts
