// Field helpers shared by the readers of hearth's own text formats (sched TSVs, MMV series):
// strict, allocation-light, and safe to quote untrusted bytes in one-line errors.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace hearth::text {

// The lines of a text ('\n' ends a line; a '\r' before it is dropped), numbered from 1, and
// one-line errors that name the place: "PATH:LINE: MESSAGE".
class Lines {
 public:
  Lines(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}
  // The next line into *LINE; false at the end of the text.
  bool next(std::string_view* line);
  // The number of the line last returned (0 before the first).
  uint64_t number() const { return number_; }
  std::unexpected<Error> error(const std::string& message) const {
    return error_at(number_, message);
  }
  std::unexpected<Error> error_at(uint64_t line, const std::string& message) const;

 private:
  std::string_view text_;
  std::string path_;
  size_t pos_ = 0;
  uint64_t number_ = 0;
};

// V as it may appear in a one-line error: in backquotes, at most 40 bytes, control and
// non-ASCII bytes as '?', "..." when cut (a garbage file cannot garble the terminal).
std::string shown(std::string_view v);

// LINE split at every tab (no trimming; "" gives one empty field).
std::vector<std::string_view> split_tabs(std::string_view line);

// Plain decimal digits, no sign, no blanks, fitting in uint64.
bool parse_u64(std::string_view s, uint64_t* v);

// An optional '-', then as parse_u64, within [MIN, MAX].
bool parse_i64(std::string_view s, int64_t min, int64_t max, int64_t* v);

// --- Writing ---

// V's decimal digits (and '-' when negative) appended to OUT: the writers' integer columns,
// whatever the locale.
template <std::integral T>
void append_decimal(std::string* out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// TEXT appended as a column value: tabs, CRs and LFs (which would break the line or the
// columns) as blanks.
inline void append_column_text(std::string* out, std::string_view text) {
  for (char c : text) out->push_back(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
}

}  // namespace hearth::text
