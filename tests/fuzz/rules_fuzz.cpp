// Fuzz target for `hearth watch`'s rules (watch/rules.h, watch/rule_state.h): any text.
//
// Invariants checked (abort with context on failure):
// - parsing never crashes, whatever the bytes;
// - every line that is not blank or a comment gives exactly one rule or one error, and every
//   error is one line naming the source, its line and column ("fuzz:LINE:COL: "), with no
//   control character in it (a message reaches a terminal or a log);
// - a rule's canonical text reads back as one rule with the same canonical text;
// - a rule fed values over time never crashes, and holds only with a value shown.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "watch/rule_state.h"
#include "watch/rules.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "rules_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hearth::watch;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const RuleSet set = parse_rules(text, "fuzz");
  for (const std::string& e : set.errors) {
    if (!e.starts_with("fuzz:")) fail("error without its source", e);
    for (const char c : e) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) fail("control character in an error", e);
    }
    // fuzz:LINE:COL: with both numbers.
    size_t at = 5, digits = 0;
    while (at < e.size() && e[at] >= '0' && e[at] <= '9') ++at, ++digits;
    if (digits == 0 || at >= e.size() || e[at] != ':') fail("error without its line", e);
    ++at;
    digits = 0;
    while (at < e.size() && e[at] >= '0' && e[at] <= '9') ++at, ++digits;
    if (digits == 0 || e.compare(at, 2, ": ") != 0) fail("error without its column", e);
  }
  // Lines with something on them: each is a rule or an error.
  size_t lines = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && line[first] != '#') ++lines;
  }
  if (set.rules.size() + set.errors.size() != lines)
    fail("a line lost", std::to_string(lines) + " lines, " + std::to_string(set.rules.size()) +
                            " rules, " + std::to_string(set.errors.size()) + " errors");
  for (const Rule& r : set.rules) {
    const std::string canonical = to_text(r);
    const RuleSet again = parse_rules(canonical, "again");
    if (!again.errors.empty())
      fail("canonical text does not read", canonical + " | " + again.errors[0]);
    if (again.rules.size() != 1) fail("canonical text is not one rule", canonical);
    if (to_text(again.rules[0]) != canonical) fail("canonical text changed", canonical);
    RuleState state(r);
    int64_t t = 0;
    for (size_t i = 0; i < 16; ++i) {
      const uint8_t b = i < size ? data[i] : 0;
      t += static_cast<int64_t>(b) * 50'000'000;
      const std::optional<double> v =
          b % 5 == 0 ? std::nullopt : std::optional<double>(r.threshold * (b % 3) * 0.75);
      if (state.observe(t, v) && !state.shown()) fail("holds with no value", canonical);
    }
  }
  return 0;
}
