// The /proc lines behind `hearth watch`'s cpu and sched: signals (watch/proc_signals.h):
// a thread's stat and schedstat. Pure: text in, fields out.
#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/text_fields.h"
#include "watch/proc_signals.h"  // declares the parsers

namespace hearth::watch {

Result<StatLine> parse_stat_line(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return fail("malformed stat line: no (comm)");
  }
  StatLine line;
  if (open < 2 || text[open - 1] != ' ') return fail("malformed stat line: no id before (comm)");
  const std::string_view id = text.substr(0, open - 1);
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), line.tid);
  if (ec != std::errc() || end != id.data() + id.size() || line.tid <= 0) {
    return fail("malformed stat line: bad id");
  }
  line.comm = text.substr(open + 1, close - open - 1);
  // ") S 1 …": a blank, one letter, then a blank or the end.
  const size_t at = close + 2;
  if (at >= text.size() || text[close + 1] != ' ') return fail("malformed stat line: no state");
  const char state = text[at];
  const bool letter = (state >= 'A' && state <= 'Z') || (state >= 'a' && state <= 'z');
  if (!letter || (at + 1 < text.size() && text[at + 1] != ' ' && text[at + 1] != '\n')) {
    return fail("malformed stat line: bad state");
  }
  line.state = state;
  // Field 20, the process's thread count: 17 fields on.
  std::string_view rest = text.substr(at + 1);
  for (int field = 4; field < 20; ++field) {
    const size_t blank = rest.find(' ', 1);
    if (rest.empty() || rest[0] != ' ' || blank == std::string_view::npos) {
      return fail("malformed stat line: fewer than 20 fields");
    }
    rest.remove_prefix(blank);
  }
  rest.remove_prefix(1);
  rest = rest.substr(0, rest.find_first_of(" \n"));
  auto [tend, tec] = std::from_chars(rest.data(), rest.data() + rest.size(), line.threads);
  if (tec != std::errc() || tend != rest.data() + rest.size() || line.threads < 1) {
    return fail("malformed stat line: bad thread count");
  }
  return line;
}

Result<SchedStat> parse_schedstat(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  SchedStat s;
  uint64_t* fields[] = {&s.run_ns, &s.wait_ns, &s.slices};
  for (size_t i = 0; i < 3; ++i) {
    const size_t blank = i < 2 ? text.find(' ') : text.size();
    if (blank == std::string_view::npos || !text::parse_u64(text.substr(0, blank), fields[i])) {
      return fail("malformed schedstat line: expected three numbers");
    }
    text.remove_prefix(i < 2 ? blank + 1 : blank);
  }
  return s;
}

namespace {

// Where the off-CPU rest of an interval goes, by the state seen at one end.
enum class OffKind { unknown, sleeping, blocked };

OffKind off_kind(char state) {
  if (state == 'S' || state == 'I') return OffKind::sleeping;
  if (state == 'D') return OffKind::blocked;
  return OffKind::unknown;
}

}  // namespace

Split split_interval(int64_t interval_ns, uint64_t run_ns, uint64_t wait_ns, char before,
                     char now) {
  Split s;
  if (interval_ns <= 0) return s;
  const double total = std::max(static_cast<double>(interval_ns),
                                static_cast<double>(run_ns) + static_cast<double>(wait_ns));
  s.running = static_cast<double>(run_ns) / total;
  s.runnable = static_cast<double>(wait_ns) / total;
  const double off = std::max(0.0, 1.0 - s.running - s.runnable);
  // The approximation (header): the rest goes by the state at the two ends. S (I) and D say
  // where it went; R at the end, after an R (or another state) at the start, says it is
  // queued now, a wait the kernel counts only once it gets a CPU; R at the start and the
  // other states (T, t, …) say nothing. With nothing said, sleeping: the commonest way to be
  // off a CPU.
  OffKind a = off_kind(before), b = off_kind(now);
  if (a == OffKind::unknown && b == OffKind::unknown && now == 'R') {
    s.queued = off;
    s.runnable += off;
    return s;
  }
  if (a == OffKind::unknown) a = b;
  if (b == OffKind::unknown) b = a;
  if (a == OffKind::unknown) a = b = OffKind::sleeping;
  const double half = off / 2;
  s.sleeping = (a == OffKind::sleeping ? half : 0) + (b == OffKind::sleeping ? half : 0);
  s.blocked = (a == OffKind::blocked ? half : 0) + (b == OffKind::blocked ? half : 0);
  return s;
}

}  // namespace hearth::watch
