// Fuzz target for the /proc lines `hearth watch` reads for its cpu and sched: signals
// (watch/proc_signals.h): a thread's stat line and its schedstat line, any bytes.
//
// Invariants checked (abort with context on failure):
// - neither parser crashes, whatever the bytes;
// - a stat line read has a positive id and thread count, a letter for its state, and its comm
//   inside the text, right after the first '(' and before the last ')';
// - any bytes as a thread's name, in a well-formed line, read back as that name (a name may
//   hold blanks, parentheses, newlines: the line is read from its last ')');
// - a schedstat line read gives three numbers that print back to the same values;
// - the shares of any interval, from those numbers and the states in the bytes, are each in
//   [0, 1] and sum to 1 (0 for an empty interval).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "watch/proc_signals.h"

namespace {

[[noreturn]] void proc_lines_fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "proc_lines_fuzz: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hearth::watch;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto line = parse_stat_line(text)) {
    if (line->tid <= 0 || line->threads <= 0) proc_lines_fail("id or count not positive", text);
    const char c = line->state;
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) proc_lines_fail("state", text);
    const char* begin = line->comm.data();
    if (begin != text.data() + text.find('(') + 1 ||
        begin + line->comm.size() != text.data() + text.rfind(')')) {
      proc_lines_fail("comm not between the first '(' and the last ')'", text);
    }
  }
  const std::string made =
      "42 (" + std::string(text) + ") S 1 1 1 0 -1 4194368 0 0 0 0 0 0 0 0 20 0 3 0 77\n";
  const auto named = parse_stat_line(made);
  if (!named || named->comm != text || named->state != 'S' || named->tid != 42 ||
      named->threads != 3) {
    proc_lines_fail("a name did not read back", made);
  }

  if (auto s = parse_schedstat(text)) {
    const std::string printed = std::to_string(s->run_ns) + " " + std::to_string(s->wait_ns) + " " +
                                std::to_string(s->slices);
    const auto again = parse_schedstat(printed);
    if (!again || again->run_ns != s->run_ns || again->wait_ns != s->wait_ns ||
        again->slices != s->slices) {
      proc_lines_fail("schedstat does not print back", text);
    }
  }
  // Shares from the first bytes: an interval, run and wait ns, two states.
  uint64_t v[3] = {0, 0, 0};
  for (size_t i = 0; i < size && i < 24; ++i) v[i / 8] = v[i / 8] << 8 | data[i];
  const auto interval = static_cast<int64_t>(v[0] >> 1);
  const char before = size > 24 ? static_cast<char>(data[24]) : 'S';
  const char now = size > 25 ? static_cast<char>(data[25]) : 'D';
  const Split sp = split_interval(interval, v[1], v[2], before, now);
  const double parts[] = {sp.running, sp.runnable, sp.sleeping, sp.blocked};
  double sum = 0;
  for (const double p : parts) {
    if (!(p >= 0 && p <= 1)) proc_lines_fail("a share outside [0, 1]", text);
    sum += p;
  }
  if (interval > 0 ? std::abs(sum - 1) > 1e-9 : sum != 0) proc_lines_fail("shares' sum", text);
  return 0;
}
