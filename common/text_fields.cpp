#include "common/text_fields.h"

namespace hearth::text {

std::string shown(std::string_view v) {
  std::string out = "`";
  for (char c : v.substr(0, 40)) {
    auto u = static_cast<unsigned char>(c);
    out += u >= 0x20 && u < 0x7f ? c : '?';
  }
  if (v.size() > 40) out += "...";
  out += '`';
  return out;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

bool parse_u64(std::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    auto d = static_cast<uint64_t>(c - '0');
    if (x > (UINT64_MAX - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}

bool parse_i64(std::string_view s, int64_t min, int64_t max, int64_t* v) {
  bool neg = s.starts_with('-');
  uint64_t mag = 0;
  if (!parse_u64(neg ? s.substr(1) : s, &mag)) return false;
  if (neg) {
    if (mag > static_cast<uint64_t>(-(min + 1)) + 1) return false;
    *v = mag == 0 ? 0 : -static_cast<int64_t>(mag - 1) - 1;
  } else {
    if (mag > static_cast<uint64_t>(max)) return false;
    *v = static_cast<int64_t>(mag);
  }
  return true;
}

bool Lines::next(std::string_view* line) {
  if (pos_ >= text_.size()) return false;
  const size_t nl = text_.find('\n', pos_);
  const size_t end = nl == std::string_view::npos ? text_.size() : nl;
  *line = text_.substr(pos_, end - pos_);
  if (line->ends_with('\r')) line->remove_suffix(1);
  pos_ = end + 1;
  ++number_;
  return true;
}

std::unexpected<Error> Lines::error_at(uint64_t line, const std::string& message) const {
  return fail(path_ + ":" + std::to_string(line) + ": " + message);
}

}  // namespace hearth::text
