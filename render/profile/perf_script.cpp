#include "render/profile/perf_script.h"

#include <utility>

#include "formats/folded.h"

namespace hearth::profile {
namespace {

bool is_space_or_tab(char c) {
  return c == ' ' || c == '\t';
}

bool is_num(char c) {
  return c >= '0' && c <= '9';
}

bool is_word(char c) {
  return is_num(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string_view skip_blanks(std::string_view s) {
  while (!s.empty() && is_space_or_tab(s.front())) s.remove_prefix(1);
  return s;
}

// The digits at the start of *S (moved past them); "" when none.
std::string_view take_num(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && is_num((*s)[n])) ++n;
  std::string_view d = s->substr(0, n);
  s->remove_prefix(n);
  return d;
}

// The next blank-separated token of *S (moved past it and the blanks after).
std::string_view take_token(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && !is_space_or_tab((*s)[n])) ++n;
  std::string_view t = s->substr(0, n);
  *s = skip_blanks(s->substr(n));
  return t;
}

// DIGITS as a number, saturating (a pid, tid or period past 2^63 is nonsense, not a crash).
uint64_t to_u64(std::string_view digits) {
  uint64_t v = 0;
  for (char c : digits) {
    if (v > (UINT64_MAX - 9) / 10) return UINT64_MAX >> 1;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// A pid or tid at the start of *S (moved past it): its digits, or "-1", what perf prints for a
// task it no longer knows (":-1    -1 [000] 25717.788585: …"); kNoId when neither.
constexpr int64_t kNoId = -2;
int64_t take_id(std::string_view* s) {
  if (s->starts_with("-1") && (s->size() == 2 || !is_num((*s)[2]))) {
    s->remove_prefix(2);
    return -1;
  }
  std::string_view digits = take_num(s);
  return digits.empty() ? kNoId : static_cast<int64_t>(to_u64(digits));
}

// "13264.915607:" -> ns; -1 when TOKEN is not perf's time field.
int64_t time_field_ns(std::string_view token) {
  if (!token.ends_with(':')) return -1;
  token.remove_suffix(1);
  std::string_view secs = take_num(&token);
  if (secs.empty() || secs.size() > 10 || !token.starts_with('.')) return -1;
  token.remove_prefix(1);
  std::string_view frac = take_num(&token);
  if (frac.empty() || !token.empty() || frac.size() > 9) return -1;
  int64_t ns = static_cast<int64_t>(to_u64(secs)) * 1'000'000'000;
  int64_t f = static_cast<int64_t>(to_u64(frac));
  for (size_t i = frac.size(); i < 9; ++i) f *= 10;
  return ns + f;
}

// A function name tidied as stackcollapse-perf.pl tidies it.
std::string tidy(std::string_view func, bool java) {
  std::string out;
  out.reserve(func.size());
  // "Lpkg/Cls.m.(…)." is a Java signature: its parentheses stay.
  size_t dot_paren = func.find(".(");
  bool java_sig = dot_paren != std::string_view::npos &&
                  func.find(").", dot_paren + 2) != std::string_view::npos;
  size_t cut = std::string_view::npos;
  if (!java_sig) {
    for (size_t at = func.find('('); at != std::string_view::npos; at = func.find('(', at + 1)) {
      if (!func.substr(at + 1).starts_with("anonymous namespace)")) {
        cut = at;
        break;
      }
    }
  }
  for (char c : func.substr(0, cut)) {
    if (c == '"' || c == '\'') continue;
    out.push_back(c == ';' ? ':' : c);
  }
  if (java && out.find('/') != std::string::npos && out.starts_with('L')) out.erase(0, 1);
  return formats::folded_safe(out);
}

bool is_kernel_dso(std::string_view dso) {
  return (dso.starts_with('[') || dso.ends_with("vmlinux")) &&
         dso.find("unknown") == std::string_view::npos;
}

// "/tmp/perf-PID.map", where perf finds a JIT's symbols.
bool is_jit_dso(std::string_view dso) {
  size_t at = dso.find("/tmp/perf-");
  if (at == std::string_view::npos) return false;
  std::string_view rest = dso.substr(at + 10);
  return !take_num(&rest).empty() && rest.starts_with(".map");
}

}  // namespace

bool parse_perf_sample_header(std::string_view line, PerfSampleHeader* h) {
  // As stackcollapse-perf.pl: "[PID/]TID" is followed by a blank, which perf always writes, so
  // a folded line ("a;b 12") is not a header.
  if (line.ends_with('\r')) line.remove_suffix(1);
  if (line.empty() || is_space_or_tab(line.front())) return false;
  // COMM may hold blanks: it ends at the first blank followed by "[PID/]TID" and a blank.
  for (size_t p = 1; p < line.size(); ++p) {
    if (!is_space_or_tab(line[p]) || is_space_or_tab(line[p - 1])) continue;
    std::string_view rest = skip_blanks(line.substr(p));
    int64_t first = take_id(&rest);
    if (first == kNoId) continue;
    int64_t second = kNoId;
    if (rest.starts_with('/')) {
      rest.remove_prefix(1);
      second = take_id(&rest);
      if (second == kNoId) continue;
    }
    if (rest.empty() || !is_space_or_tab(rest.front())) continue;
    *h = PerfSampleHeader{};
    h->comm = line.substr(0, p);
    if (second == kNoId) {
      h->tid = first;
    } else {
      h->pid = first;
      h->tid = second;
    }
    rest = skip_blanks(rest);
    // [CPU], then the time, then the period and the event, each where present.
    if (rest.starts_with('[')) take_token(&rest);
    std::string_view save = rest;
    h->time_ns = time_field_ns(take_token(&rest));
    if (h->time_ns < 0) rest = save;
    save = rest;
    std::string_view period = take_token(&rest);
    std::string_view digits = period;
    if (!period.empty() && take_num(&digits) == period) {
      h->period = to_u64(period);
    } else {
      rest = save;
    }
    std::string_view event = take_token(&rest);
    if (event.size() > 1 && event.ends_with(':')) h->event = event.substr(0, event.size() - 1);
    return true;
  }
  return false;
}

bool looks_like_perf_script(std::string_view line) {
  if (line == "# ========") return true;  // the first line of `perf script --header`
  PerfSampleHeader h;
  return parse_perf_sample_header(line, &h) && h.time_ns >= 0 && !h.event.empty();
}

PerfScriptFolder::PerfScriptFolder(std::function<void(std::string_view, int64_t)> emit)
    : emit_(std::move(emit)) {}

bool PerfScriptFolder::add_line(std::string_view line) {
  if (line.starts_with('#')) return true;  // `perf script --header`'s lines
  if (line.ends_with('\r')) line.remove_suffix(1);
  if (line.empty()) {
    flush();
    return true;
  }
  PerfSampleHeader h;
  if (!is_space_or_tab(line.front())) {
    flush();  // a sample without its blank line
    if (!parse_perf_sample_header(line, &h)) return false;
    if (!h.event.empty()) {
      if (event_.empty()) event_ = h.event;
      if (h.event != event_) {
        if (other_samples_++ == 0) other_event_ = h.event;
        return true;
      }
    }
    in_sample_ = true;
    // A sample without frames is drawn (its thread alone) when its header is surely perf's.
    surely_perf_ = h.time_ns >= 0 || !h.event.empty();
    java_ = h.comm.starts_with("java");
    root_ = formats::thread_root(h.comm, static_cast<pid_t>(h.tid), false);
    count_ = h.period == 0 ? 1 : h.period;
    time_ns_ = h.time_ns;
    pid_ = h.pid;
    tid_ = h.tid;
    return true;
  }
  // A frame: "ADDR SYM (DSO)", SYM up to the last " (" that a ')' follows, DSO up to that ')'.
  std::string_view s = skip_blanks(line);
  size_t n = 0;
  while (n < s.size() && is_word(s[n])) ++n;
  if (n == 0) return false;
  std::string_view pc = s.substr(0, n);
  s = skip_blanks(s.substr(n));
  size_t close = s.rfind(')');
  size_t open = close == std::string_view::npos ? close : s.rfind(" (", close);
  if (open == std::string_view::npos || open == 0) return false;
  if (in_sample_) add_frame(pc, s.substr(0, open), s.substr(open + 2, close - open - 2));
  return true;
}

void PerfScriptFolder::add_frame(std::string_view, std::string_view sym, std::string_view dso) {
  // "f+0x1c" -> "f"
  if (size_t plus = sym.rfind("+0x"); plus != std::string_view::npos) {
    std::string_view off = sym.substr(plus + 3);
    bool hex = !off.empty();
    for (char c : off) hex = hex && (is_num(c) || (c >= 'a' && c <= 'f'));
    if (hex) sym = sym.substr(0, plus);
  }
  if (sym.starts_with('(')) return;  // a process name, not a frame
  // An inline chain "outer->inner": one frame each, the inner ones marked "_[i]".
  std::string group;
  bool first = true;
  while (true) {
    size_t arrow = sym.find("->");
    std::string_view part = sym.substr(0, arrow);
    std::string func;
    if (part == "[unknown]") {
      std::string_view file = dso;
      if (size_t slash = file.rfind('/'); slash != std::string_view::npos) {
        file.remove_prefix(slash + 1);
      }
      func = dso == "[unknown]" ? "[unknown]" : "[" + std::string(file) + "]";
    } else {
      func = std::string(part);
    }
    func = tidy(func, java_);
    if (func.empty()) func = "[unknown]";
    if (!first) {
      if (func.find("_[i]") == std::string::npos) func += "_[i]";
    } else if (is_kernel_dso(dso)) {
      func += "_[k]";
    } else if (is_jit_dso(dso) && func.find("_[j]") == std::string::npos) {
      func += "_[j]";
    }
    if (!first) group.push_back(';');
    group += func;
    first = false;
    if (arrow == std::string_view::npos) break;
    sym.remove_prefix(arrow + 2);
  }
  frames_.push_back(std::move(group));
}

void PerfScriptFolder::finish() {
  flush();
}

void PerfScriptFolder::flush() {
  // A sample without frames is its thread root alone, as stackcollapse-perf.pl has it.
  if (in_sample_ && (!frames_.empty() || surely_perf_)) {
    line_ = root_;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      line_.push_back(';');
      line_ += *it;
    }
    line_.push_back(' ');
    line_ += std::to_string(count_);
    ++samples_;
    emit_(line_, time_ns_);
  }
  in_sample_ = false;
  frames_.clear();
}

}  // namespace hearth::profile
