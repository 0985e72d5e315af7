#include "render/timeline/time_text.h"

#include <cstdio>
#include <ctime>

namespace hearth::timeline {
namespace {

// "12.50" -> "12.5", "3.0" -> "3".
std::string trimmed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::string duration_text(uint64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1000) return std::to_string(ns) + " ns";
  if (ns < 1'000'000) return trimmed(v / 1e3, v < 1e4 ? 2 : 1) + " \xc2\xb5s";
  if (ns < 1'000'000'000) return trimmed(v / 1e6, v < 1e7 ? 2 : 1) + " ms";
  if (ns < 60'000'000'000) return trimmed(v / 1e9, v < 1e10 ? 2 : 1) + " s";
  const uint64_t s = (ns + 500'000'000) / 1'000'000'000;
  if (s < 3600) {
    return std::to_string(s / 60) + " min" + (s % 60 ? " " + std::to_string(s % 60) + " s" : "");
  }
  const uint64_t min = (s + 30) / 60;
  return std::to_string(min / 60) + " h" +
         (min % 60 ? " " + std::to_string(min % 60) + " min" : "");
}

uint64_t tick_step(uint64_t span_ns, double width_px, double min_px) {
  const double per_px = static_cast<double>(span_ns) / (width_px > 1 ? width_px : 1);
  for (uint64_t p = 1; p <= 1'000'000'000'000'000'000ULL / 10; p *= 10) {
    for (uint64_t m : {1, 2, 5}) {
      const uint64_t step = p * m;
      if (static_cast<double>(step) / per_px >= min_px) return step;
    }
  }
  return 1'000'000'000'000'000'000ULL;
}

std::string seconds_text(int64_t t_ns, uint64_t step_ns) {
  int decimals = 0;
  for (uint64_t unit = 1'000'000'000; step_ns % unit != 0 && decimals < 9; unit /= 10) ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f s", decimals, static_cast<double>(t_ns) / 1e9);
  return buf;
}

std::string wall_clock_text(uint64_t real_ns, uint64_t step_ns) {
  const time_t secs = static_cast<time_t>(real_ns / 1'000'000'000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
  std::string s = buf;
  const uint64_t frac = real_ns % 1'000'000'000;
  if (step_ns < 1'000'000) {
    std::snprintf(buf, sizeof buf, ".%06llu", static_cast<unsigned long long>(frac / 1000));
    s += buf;
  } else if (step_ns < 1'000'000'000) {
    std::snprintf(buf, sizeof buf, ".%03llu", static_cast<unsigned long long>(frac / 1'000'000));
    s += buf;
  }
  return s;
}

}  // namespace hearth::timeline
