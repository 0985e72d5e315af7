// The one regular-expression type of every filter (`hearth flame --grep/--only-threads`,
// `hearth chart --metrics`): RE2 syntax, searched anywhere in the text, in time linear in the
// text's length and with bounded memory. No backtracking and no recursion, so a hostile
// pattern such as `(x|y)+z` over a 100,000-character C++ template name is as safe as `main`
// over `main` (libstdc++'s std::regex recursed once per character and overflowed the stack).
//
// Syntax is RE2's (README, "Regular expressions"): what ECMAScript writes the same way works
// the same way; backreferences (\1), lookahead (?= ?!), lookbehind (?<= ?<!), \cX and \uXXXX
// are compile errors, never silently different matches.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace re2 {
class RE2;
}

namespace hearth {

class Pattern {
 public:
  // Compiles TEXT. "" matches every text. The error is one line, RE2's own words, plus a hint
  // when TEXT uses an ECMAScript/Perl feature RE2 leaves out: "missing ): (x".
  static Result<Pattern> compile(std::string_view text);

  // Whether the pattern matches somewhere in TEXT. TEXT is bytes that should be UTF-8, as
  // hearth treats names (common/utf8.h): a byte that is not part of a valid sequence is
  // searched as U+FFFD, the character the SVG shows for it, so `a.b` matches "a\xffb" as it
  // does in the flamegraph's search box. Thread-safe: one Pattern may be shared by threads.
  bool search(std::string_view text) const;

  // The text it was compiled from.
  const std::string& text() const { return text_; }

 private:
  Pattern() = default;

  std::string text_;
  std::shared_ptr<const re2::RE2> re_;  // immutable once compiled; copies share it
};

}  // namespace hearth
