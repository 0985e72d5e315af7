// Field helpers shared by the readers of hearth's own text formats (sched TSVs, MMV series):
// strict, allocation-light, and safe to quote untrusted bytes in one-line errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::text {

// V as it may appear in a one-line error: in backquotes, at most 40 bytes, control and
// non-ASCII bytes as '?', "..." when cut (a garbage file cannot garble the terminal).
std::string shown(std::string_view v);

// LINE split at every tab (no trimming; "" gives one empty field).
std::vector<std::string_view> split_tabs(std::string_view line);

// Plain decimal digits, no sign, no blanks, fitting in uint64.
bool parse_u64(std::string_view s, uint64_t* v);

// An optional '-', then as parse_u64, within [MIN, MAX].
bool parse_i64(std::string_view s, int64_t min, int64_t max, int64_t* v);

}  // namespace hearth::text
