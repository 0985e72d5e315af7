#include "common/pattern.h"

#include <re2/re2.h>

#include "common/utf8.h"

namespace hearth {
namespace {

// RE2's default program budget (8 MiB) is ample for any pattern typed on a command line; a
// pattern that needs more fails to compile instead of slowing the run down.
constexpr int64_t kMaxMemoryBytes = 8 << 20;

// Whether TEXT is valid UTF-8 through and through (the usual case: no copy needed).
bool valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8::sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// TEXT with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.
std::string repaired_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8::sequence_length(text, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

Result<Pattern> Pattern::compile(std::string_view text) {
  RE2::Options options;
  options.set_log_errors(false);  // errors come back as values, never on stderr
  options.set_max_mem(kMaxMemoryBytes);
  auto re = std::make_shared<const RE2>(re2::StringPiece(text.data(), text.size()), options);
  if (!re->ok()) {
    std::string why = re->error();
    // What an ECMAScript or Perl pattern may use and RE2 does not have: say so, since the
    // error alone ("invalid perl operator: (?<") does not tell a user what to change.
    if (re->error_code() == RE2::ErrorBadPerlOp || re->error_code() == RE2::ErrorBadEscape) {
      why +=
          "; RE2 syntax has no backreferences, lookahead or lookbehind, and names groups "
          "(?P<name>...)";
    }
    return fail(why);
  }
  Pattern p;
  p.text_ = std::string(text);
  p.re_ = std::move(re);
  return p;
}

bool Pattern::search(std::string_view text) const {
  if (valid_utf8(text)) return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
  std::string repaired = repaired_utf8(text);
  return RE2::PartialMatch(repaired, *re_);
}

}  // namespace hearth
