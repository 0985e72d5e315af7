// The rules of `hearth watch`: when a signal of the watched process (or of the host, through
// PCP) crosses a threshold, the watcher records. Pure: text in, rules out, no kernel, no PCP.
//
// The grammar (README, "Rules"), one rule per line; `#` starts a comment, blank lines are
// skipped:
//
//   rule      := [ NAME "=" ] signal compare value [ ( "for" | "over" ) duration ]
//   signal    := "mmv:" METRIC [ "[" INSTANCE "]" ]     the target's MMV metrics, as published
//              | "pcp:" METRIC [ "[" INSTANCE "]" ]     a metric the host's pmcd serves
//              | "cpu"                                  the target's CPU use, % of one core
//              | "sched:" STATE [ "(" "thread" "=" GLOB ")" ]
//              | "stack:" STRING                        share of stacks with a frame holding STRING
//   STATE     := "running" | "runnable" | "sleeping" | "blocked"
//   compare   := ">" | ">=" | "<" | "<="
//   value     := NUMBER [ "%" | "us" | "ms" | "s" | "min" | "h" ]
//   duration  := NUMBER ( "us" | "ms" | "s" | "min" | "h" )
//
// NAME is [A-Za-z_][A-Za-z0-9_.-]*; METRIC a PCP/MMV name ([A-Za-z_][A-Za-z0-9_.]*); INSTANCE
// and GLOB a quoted STRING ('…' or "…", backslash escapes \\ \' \") or a bare word (no blank,
// no `]` resp. `)` or `,`). GLOB is fnmatch(3)'s (`http-*`), over thread names.
//
// What a value means depends on the signal:
//   - mmv:, pcp: a plain number, compared with the metric's value as published;
//   - cpu, stack: a share, with `%` (cpu: 150% is one and a half cores);
//   - sched: a share with `%` (of the matching threads' time spent in STATE), or a duration
//     (the longest stretch in STATE that any matching thread is in now).
// Window: none, the condition at each evaluation; `for D`, it has held at every evaluation for
// the last D; `over D`, the signal's mean over the last D is compared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth::watch {

enum class SignalKind { mmv, pcp, cpu, sched, stack };
enum class SchedState { running, runnable, sleeping, blocked };
enum class Compare { greater, greater_equal, less, less_equal };
// What the threshold is: as published (mmv:, pcp:), a share (a fraction: 0.2 for 20%; cpu may
// exceed 1), or a duration (seconds).
enum class Measure { value, share, duration };
enum class Window { now, held_for, mean_over };

struct Rule {
  std::string name;   // given (`NAME = …`), else "rule-N" (N: its place among the rules, from 1)
  std::string where;  // "SOURCE:LINE", for messages
  SignalKind kind = SignalKind::cpu;
  std::string metric;                      // mmv:, pcp:
  std::string instance;                    // mmv:, pcp: ("" when none is named)
  SchedState state = SchedState::running;  // sched:
  std::string thread_glob;                 // sched: ("" when every thread counts)
  std::string stack_text;                  // stack:
  Compare compare = Compare::greater;
  double value = 0;  // the threshold as written
  std::string unit;  // as written: "", "%", "us", "ms", "s", "min", "h"
  Measure measure = Measure::value;
  double threshold = 0;  // VALUE in MEASURE's unit: a share as a fraction, a duration in seconds
  Window window = Window::now;
  double window_value = 0;  // held_for, mean_over: as written (> 0)
  std::string window_unit;  // "us", "ms", "s", "min", "h"
  double window_s = 0;      // in seconds
};

struct RuleSet {
  std::vector<Rule> rules;          // the valid rules, in order
  std::vector<std::string> errors;  // one line each: "SOURCE:LINE:COL: expected …, found …"
};

// Parses TEXT (a rules file, or one `--rule`), named SOURCE in messages. A line with an error
// is left out and the others kept: a watcher goes on with the rules that are valid. FIRST_NUMBER
// numbers the unnamed rules (rule-FIRST_NUMBER, …) so that several sources get distinct names.
RuleSet parse_rules(std::string_view text, std::string_view source, size_t first_number = 1);

// The rule as text in the grammar above, canonical (numbers in their shortest exact form,
// strings quoted where a bare word would not read back): parse_rules(to_text(r)) gives r back,
// but `where`.
std::string to_text(const Rule& rule);

// "cpu", "mmv:app.queue.depth[q1]", "sched:runnable(thread=http-*)": the signal alone, as the
// watcher names it in its figures.
std::string signal_text(const Rule& rule);

const char* state_name(SchedState s);

}  // namespace hearth::watch
