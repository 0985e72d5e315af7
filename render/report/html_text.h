// How the report page writes text and numbers: HTML-escaped text, fixed decimals, durations with
// their unit, URL query values, the pictures' elements. Shared by the page (report.cpp) and its
// sections.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "common/url.h"
#include "render/svg/xml.h"

namespace hearth::report {

inline std::string esc(std::string_view s) {
  return svg::escaped(s);
}

inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "12.3 s", "45.6 ms", "789 µs".
inline std::string duration_ns(double ns) {
  if (ns >= 1e9) return fixed(ns / 1e9, 2) + " s";
  if (ns >= 1e6) return fixed(ns / 1e6, 1) + " ms";
  return fixed(ns / 1e3, 0) + " µs";
}

// A picture of the report directory in the page: an <object> (its scripts run) named ALT for
// assistive technology, with a link to FILE where it cannot be shown.
inline std::string picture(std::string_view file, std::string_view alt) {
  return "<object class=\"picture\" type=\"image/svg+xml\" data=\"" + esc(file) +
         "\" aria-label=\"" + esc(alt) + "\"><a href=\"" + esc(file) + "\">" + esc(alt) +
         "</a></object>\n";
}

// Percent-encodes a URL query value.
inline std::string url_encode(std::string_view s) {
  return percent_encode(s);
}

}  // namespace hearth::report
