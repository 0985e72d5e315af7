#include "render/flame/names.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/utf8.h"

namespace hearth::flame {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // U+2026

std::string collapse_groups(std::string_view s, char open, char close, bool keep_anonymous) {
  std::string out;
  out.reserve(s.size());
  int depth = 0;
  size_t content_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == open) {
      if (depth++ == 0) {
        out += open;
        content_start = i + 1;
      }
    } else if (c == close) {
      if (depth == 0) return std::string(s);  // unbalanced
      if (--depth == 0) {
        std::string_view content = s.substr(content_start, i - content_start);
        if (keep_anonymous && content == "anonymous namespace") {
          out += content;
        } else if (!content.empty()) {
          out += kEllipsis;
        }
        out += close;
      }
    } else if (depth == 0) {
      out += c;
    }
  }
  if (depth != 0) return std::string(s);
  return out;
}

}  // namespace

std::string_view strip_annotation(std::string_view name) {
  if (name.size() >= 4 && name[name.size() - 4] == '_' && name[name.size() - 3] == '[' &&
      name.back() == ']') {
    char k = name[name.size() - 2];
    if (k == 'k' || k == 'w' || k == 'i' || k == 'j') return name.substr(0, name.size() - 4);
  }
  return name;
}

std::string drop_parameters(std::string_view name) {
  return collapse_groups(name, '(', ')', true);
}

std::string drop_template_arguments(std::string_view name) {
  return collapse_groups(drop_parameters(name), '<', '>', false);
}

size_t code_points(std::string_view s) {
  return utf8::length(s);
}

std::string fit_label(std::string_view name, double width, double font_size, double font_width) {
  double fit = std::floor(width / (font_size * font_width));
  if (!(fit >= 3)) return {};
  size_t chars = fit > 1e6 ? 1000000 : static_cast<size_t>(fit);
  if (code_points(name) <= chars) return std::string(name);
  std::string no_params = drop_parameters(name);
  if (code_points(no_params) <= chars) return no_params;
  std::string no_templates = drop_template_arguments(name);
  if (code_points(no_templates) <= chars) return no_templates;
  std::string out(utf8::prefix(no_templates, chars - 2));
  out += "..";
  return out;
}

namespace {

// "1234567" -> "1,234,567"; anything but digits (inf, nan) as it is.
std::string group_digits(std::string digits) {
  std::string sign;
  if (!digits.empty() && digits[0] == '-') {
    sign = "-";
    digits.erase(0, 1);
  }
  if (digits.find_first_not_of("0123456789") != std::string::npos) return sign + digits;  // inf
  std::string out;
  size_t lead = digits.size() % 3;
  if (lead == 0) lead = 3;
  out.append(digits, 0, lead);
  for (size_t i = lead; i < digits.size(); i += 3) {
    out += ',';
    out.append(digits, i, 3);
  }
  return sign + out;
}

}  // namespace

std::string with_thousands(double count) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.0f", count);
  return group_digits(buf);
}

std::string with_thousands(profile::Count count, double factor) {
  if (count.fractional || factor != 1) return with_thousands(count.value * factor);
  // A whole count's digits, grouped as they are written (every frame's title has one).
  char digits[24];
  const size_t n =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, count.whole).ptr - digits);
  std::string out;
  out.reserve(n + n / 3);
  size_t lead = n % 3 == 0 ? 3 : n % 3;
  out.append(digits, lead);
  for (size_t i = lead; i < n; i += 3) {
    out.push_back(',');
    out.append(digits + i, 3);
  }
  return out;
}

}  // namespace hearth::flame
