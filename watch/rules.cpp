#include "watch/rules.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <system_error>

namespace hearth::watch {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_num(char c) {
  return c >= '0' && c <= '9';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// A token as a message shows it: "'xyz'", "the end of the line".
std::string shown(std::string_view t) {
  if (t.empty()) return "the end of the line";
  std::string out = "'";
  for (const char c : t.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + (t.size() > 40 ? "…'" : "'");
}

// Thrown inside one line's parse, caught at the line: the message without "SOURCE:LINE:".
struct LineError {
  size_t column;  // from 1
  std::string message;
};

// One line of rules text, read left to right.
class Cursor {
 public:
  explicit Cursor(std::string_view line) : line_(line) {}

  void skip_blanks() {
    while (at_ < line_.size() && is_blank(line_[at_])) ++at_;
  }
  bool at_end() {
    skip_blanks();
    return at_ >= line_.size() || line_[at_] == '#';
  }
  char peek() {
    skip_blanks();
    return at_ < line_.size() ? line_[at_] : '\0';
  }
  size_t column() const { return at_ + 1; }
  // The column of the next token.
  size_t next_column() {
    skip_blanks();
    return column();
  }

  // The next token as text, for "found …": a word, a number, or one character.
  std::string_view next_token() {
    skip_blanks();
    if (at_ >= line_.size() || line_[at_] == '#') return {};
    size_t end = at_;
    if (is_alpha(line_[end]) || is_num(line_[end])) {
      while (end < line_.size() &&
             (is_alpha(line_[end]) || is_num(line_[end]) || line_[end] == '.' || line_[end] == '-'))
        ++end;
    } else {
      end = at_ + 1;
      if ((line_[at_] == '>' || line_[at_] == '<') && end < line_.size() && line_[end] == '=')
        ++end;
    }
    return line_.substr(at_, end - at_);
  }

  [[noreturn]] void expected(std::string_view what) {
    skip_blanks();
    throw LineError{column(), "expected " + std::string(what) + ", found " + shown(next_token())};
  }

  // Consumes LITERAL if it comes next (a word must end there).
  bool accept(std::string_view literal) {
    skip_blanks();
    if (line_.substr(at_, literal.size()) != literal) return false;
    const size_t end = at_ + literal.size();
    if (is_alpha(literal.back()) && end < line_.size() &&
        (is_alpha(line_[end]) || is_num(line_[end])))
      return false;
    at_ = end;
    return true;
  }
  void expect(std::string_view literal, std::string_view what) {
    if (!accept(literal)) expected(what);
  }

  // [A-Za-z_][A-Za-z0-9_.]* (with '-' too when DASH).
  std::optional<std::string> word(bool dash) {
    skip_blanks();
    if (at_ >= line_.size() || !is_alpha(line_[at_])) return std::nullopt;
    size_t end = at_ + 1;
    while (end < line_.size() && (is_alpha(line_[end]) || is_num(line_[end]) || line_[end] == '.' ||
                                  (dash && line_[end] == '-')))
      ++end;
    std::string w(line_.substr(at_, end - at_));
    at_ = end;
    return w;
  }

  // A quoted string, or a bare run of characters up to a blank or one of STOPS; WHAT names it.
  std::string text(std::string_view stops, std::string_view what) {
    skip_blanks();
    if (at_ < line_.size() && (line_[at_] == '\'' || line_[at_] == '"')) return quoted();
    size_t end = at_;
    while (end < line_.size() && !is_blank(line_[end]) &&
           stops.find(line_[end]) == std::string_view::npos)
      ++end;
    if (end == at_) expected(what);
    std::string t(line_.substr(at_, end - at_));
    at_ = end;
    return t;
  }

  std::string quoted() {
    const char quote = line_[at_];
    const size_t start = at_;
    std::string out;
    for (++at_; at_ < line_.size(); ++at_) {
      const char c = line_[at_];
      if (c == quote) {
        ++at_;
        return out;
      }
      if (c == '\\') {
        if (at_ + 1 >= line_.size()) break;
        const char e = line_[++at_];
        if (e != '\\' && e != '\'' && e != '"')
          throw LineError{at_ + 1, "expected \\\\, \\' or \\\" after a backslash, found " +
                                       shown(line_.substr(at_, 1))};
        out += e;
        continue;
      }
      out += c;
    }
    throw LineError{start + 1,
                    "a string that does not end: expected its closing " + std::string(1, quote)};
  }

  // NUMBER and the unit right after it ("20%", "1.5s", "100"); VALUE, UNIT. UNIT_COLUMN: where
  // the unit starts (or would).
  std::pair<double, std::string> number(std::string_view what, size_t* unit_column = nullptr) {
    skip_blanks();
    size_t end = at_;
    while (end < line_.size() &&
           (is_num(line_[end]) || line_[end] == '.' ||
            ((line_[end] == 'e' || line_[end] == 'E') && end + 1 < line_.size() &&
             (is_num(line_[end + 1]) || line_[end + 1] == '-' || line_[end + 1] == '+')) ||
            ((line_[end] == '-' || line_[end] == '+') && end > at_ &&
             (line_[end - 1] == 'e' || line_[end - 1] == 'E'))))
      ++end;
    double v = 0;
    const char* first = line_.data() + at_;
    const auto r = std::from_chars(first, line_.data() + end, v);
    if (end == at_ || r.ec != std::errc() || r.ptr != line_.data() + end || !std::isfinite(v))
      expected(what);
    at_ = end;
    if (unit_column) *unit_column = column();
    size_t unit_end = at_;
    if (unit_end < line_.size() && line_[unit_end] == '%') {
      ++unit_end;
    } else {
      while (unit_end < line_.size() && is_alpha(line_[unit_end])) ++unit_end;
    }
    std::string unit(line_.substr(at_, unit_end - at_));
    if (!unit.empty() && unit != "%" && unit != "us" && unit != "ms" && unit != "s" &&
        unit != "min" && unit != "h")
      throw LineError{at_ + 1,
                      "expected a unit (%, us, ms, s, min or h) or a blank, found " + shown(unit)};
    at_ = unit_end;
    return {v, unit};
  }

 private:
  std::string_view line_;
  size_t at_ = 0;
};

double seconds_of(double v, const std::string& unit) {
  if (unit == "us") return v / 1e6;
  if (unit == "ms") return v / 1e3;
  if (unit == "min") return v * 60;
  if (unit == "h") return v * 3600;
  return v;
}

constexpr double kMaxWindowS = 24 * 3600;  // the longest window: a day of the ring

const char* kSignals = "a signal (mmv:, pcp:, cpu, sched: or stack:)";

// mmv:/pcp:'s METRIC [ "[" INSTANCE "]" ].
void parse_metric(Cursor& c, Rule* r) {
  auto metric = c.word(false);
  if (!metric) c.expected("a metric name (such as app.queue.depth)");
  r->metric = *metric;
  if (c.peek() == '[') {
    c.accept("[");
    r->instance = c.text("]", "an instance name");
    c.expect("]", "']'");
  }
}

void parse_sched(Cursor& c, Rule* r) {
  if (c.accept("running")) {
    r->state = SchedState::running;
  } else if (c.accept("runnable")) {
    r->state = SchedState::runnable;
  } else if (c.accept("sleeping")) {
    r->state = SchedState::sleeping;
  } else if (c.accept("blocked")) {
    r->state = SchedState::blocked;
  } else {
    c.expected("a state (running, runnable, sleeping or blocked)");
  }
  if (c.peek() == '(') {
    c.accept("(");
    c.expect("thread", "'thread'");
    c.expect("=", "'='");
    r->thread_glob = c.text("),", "a thread name pattern (such as http-*)");
    c.expect(")", "')'");
  }
}

Compare parse_compare(Cursor& c) {
  if (c.accept(">=")) return Compare::greater_equal;
  if (c.accept("<=")) return Compare::less_equal;
  if (c.accept(">")) return Compare::greater;
  if (c.accept("<")) return Compare::less;
  c.expected("a comparison (>, >=, < or <=)");
}

// The threshold, checked against what the signal gives.
void parse_value(Cursor& c, Rule* r) {
  const size_t column = c.next_column();
  size_t unit_column = 0;
  auto [v, unit] = c.number("a number", &unit_column);
  r->value = v;
  r->unit = unit;
  const bool share = unit == "%";
  const bool duration = !unit.empty() && !share;
  switch (r->kind) {
    case SignalKind::mmv:
    case SignalKind::pcp:
      if (!unit.empty()) {
        throw LineError{unit_column,
                        "expected a plain number (a metric is compared as published), "
                        "found " +
                            shown(unit)};
      }
      break;
    case SignalKind::cpu:
    case SignalKind::stack:
      if (!share) throw LineError{column, "expected a share with % (such as 20%)"};
      break;
    case SignalKind::sched:
      if (unit.empty()) {
        throw LineError{column,
                        "expected a share with % (20%) or a duration (1s) for a sched: signal"};
      }
      break;
  }
  if (v < 0) throw LineError{column, "expected a number not below 0"};
  if (share && r->kind != SignalKind::cpu && v > 100)
    throw LineError{column, "expected a share of at most 100%"};
  r->measure = share ? Measure::share : duration ? Measure::duration : Measure::value;
  r->threshold = share ? v / 100 : duration ? seconds_of(v, unit) : v;
}

void parse_window(Cursor& c, Rule* r) {
  if (c.accept("for")) {
    r->window = Window::held_for;
  } else if (c.accept("over")) {
    r->window = Window::mean_over;
  } else {
    return;
  }
  const size_t column = c.next_column();
  auto [v, unit] = c.number("a duration (such as 5s)");
  if (unit.empty() || unit == "%")
    throw LineError{column, "expected a duration with its unit (us, ms, s, min or h)"};
  const double seconds = seconds_of(v, unit);
  if (!(seconds > 0) || seconds > kMaxWindowS)
    throw LineError{column, "expected a duration above 0 and at most 24h"};
  r->window_value = v;
  r->window_unit = unit;
  r->window_s = seconds;
}

// One line's rule; throws LineError.
Rule parse_line(Cursor& c) {
  Rule r;
  // NAME = …: a word followed by '='.
  {
    Cursor probe = c;
    if (auto name = probe.word(true); name && probe.peek() == '=') {
      probe.accept("=");
      r.name = *name;
      c = probe;
    }
  }
  if (c.accept("mmv:")) {
    r.kind = SignalKind::mmv;
    parse_metric(c, &r);
  } else if (c.accept("pcp:")) {
    r.kind = SignalKind::pcp;
    parse_metric(c, &r);
  } else if (c.accept("cpu")) {
    r.kind = SignalKind::cpu;
  } else if (c.accept("sched:")) {
    r.kind = SignalKind::sched;
    parse_sched(c, &r);
  } else if (c.accept("stack:")) {
    r.kind = SignalKind::stack;
    const char q = c.peek();
    if (q != '\'' && q != '"') c.expected("a quoted text (such as 'checkpoint')");
    r.stack_text = c.quoted();
    if (r.stack_text.empty()) c.expected("a text that is not empty");
  } else {
    c.expected(kSignals);
  }
  r.compare = parse_compare(c);
  parse_value(c, &r);
  parse_window(c, &r);
  if (!c.at_end()) c.expected("'for', 'over' or the end of the line");
  return r;
}

// The shortest text that reads back as V.
std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string quoted_text(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// TEXT as a bare word when it reads back as one (no blank, quote, backslash, '#' or STOPS),
// else quoted.
std::string word_or_quoted(const std::string& text, std::string_view stops) {
  bool bare = !text.empty();
  for (const char c : text) {
    if (is_blank(c) || c == '\'' || c == '"' || c == '\\' || c == '#' || c == '\n' ||
        stops.find(c) != std::string_view::npos)
      bare = false;
  }
  return bare ? text : quoted_text(text);
}

}  // namespace

RuleSet parse_rules(std::string_view text, std::string_view source, size_t first_number) {
  RuleSet out;
  std::set<std::string> names;
  size_t number = first_number;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    const std::string where = std::string(source) + ":" + std::to_string(line_no);
    Cursor c(line);
    if (c.at_end()) continue;
    try {
      Rule r = parse_line(c);
      if (r.name.empty()) r.name = "rule-" + std::to_string(number);
      ++number;
      if (!names.insert(r.name).second) {
        throw LineError{1, "a second rule named " + shown(r.name) + ": names must differ"};
      }
      r.where = where;
      out.rules.push_back(std::move(r));
    } catch (const LineError& e) {
      out.errors.push_back(where + ":" + std::to_string(e.column) + ": " + e.message);
    }
  }
  return out;
}

std::string signal_text(const Rule& r) {
  switch (r.kind) {
    case SignalKind::mmv:
    case SignalKind::pcp: {
      std::string s = (r.kind == SignalKind::mmv ? "mmv:" : "pcp:") + r.metric;
      if (!r.instance.empty()) s.append("[").append(word_or_quoted(r.instance, "[]")).append("]");
      return s;
    }
    case SignalKind::cpu:
      return "cpu";
    case SignalKind::sched: {
      std::string s = std::string("sched:") + state_name(r.state);
      if (!r.thread_glob.empty())
        s.append("(thread=").append(word_or_quoted(r.thread_glob, "(),")).append(")");
      return s;
    }
    case SignalKind::stack:
      return std::string("stack:").append(quoted_text(r.stack_text));
  }
  return "?";
}

std::string to_text(const Rule& r) {
  static const char* const kCompare[] = {">", ">=", "<", "<="};
  std::string s = r.name + " = " + signal_text(r) + " " + kCompare[static_cast<int>(r.compare)] +
                  " " + number_text(r.value) + r.unit;
  if (r.window == Window::held_for) s += " for ";
  if (r.window == Window::mean_over) s += " over ";
  if (r.window != Window::now) s += number_text(r.window_value) + r.window_unit;
  return s;
}

const char* state_name(SchedState s) {
  switch (s) {
    case SchedState::running:
      return "running";
    case SchedState::runnable:
      return "runnable";
    case SchedState::sleeping:
      return "sleeping";
    case SchedState::blocked:
      return "blocked";
  }
  return "?";
}

}  // namespace hearth::watch
