#include "render/moment/moment_text.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace hearth::moment {
namespace {

// JavaScript's V.toFixed(DECIMALS) for 0 <= V < 1e15: the exact value of the double rounded half
// up. V * 10^DECIMALS (DECIMALS <= 3) is exact in an x87 long double (53 + 10 bits), so the
// fraction is too.
std::string js_fixed(double v, int decimals) {
  long double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const long double x = static_cast<long double>(v) * scale;
  long double whole = std::floor(x);
  if (x - whole >= 0.5L) whole += 1;
  const auto n = static_cast<unsigned long long>(whole);
  const auto unit = static_cast<unsigned long long>(scale);
  std::string s = std::to_string(n / unit);
  if (decimals > 0) {
    std::string frac = std::to_string(n % unit);
    s += "." + std::string(static_cast<size_t>(decimals) - frac.size(), '0') + frac;
  }
  return s;
}

// The page's .replace(/\.?0+$/, "") on a number with a decimal point.
std::string trimmed(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

std::string iso_utc(uint64_t real_ns) {
  const auto secs = static_cast<time_t>(real_ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<unsigned>(real_ns % 1000000000 / 1000000));
  return buf;
}

}  // namespace

std::string duration_text(uint64_t ns) {
  const auto v = static_cast<double>(ns);
  constexpr double kNs = 1e9;
  if (v >= 3600 * kNs) return trimmed(js_fixed(v / 3600 / kNs, 2)) + " h";
  if (v >= 60 * kNs) return trimmed(js_fixed(v / 60 / kNs, 2)) + " min";
  if (v >= kNs) return trimmed(js_fixed(v / kNs, 3)) + " s";
  if (v >= 1e6) return trimmed(js_fixed(v / 1e6, 3)) + " ms";
  if (v >= 1e3) return trimmed(js_fixed(v / 1e3, 1)) + " \u00b5s";
  return std::to_string(ns) + " ns";
}

std::string title_text(const timed_samples::Samples& s, const Moment& m) {
  std::string t = "Moment: " + trimmed(js_fixed(static_cast<double>(m.time_ns) / 1e9, 3)) + " s";
  if (s.real_ns != 0) t += " (" + iso_utc(s.real_ns + m.time_ns) + ")";
  return t + ", pid " + std::to_string(m.pid);
}

std::string info_text(const timed_samples::Samples& s, const Moment& m) {
  return "Sample " + thousands(m.round + 1) + " of " + thousands(s.rounds.size()) + ": " +
         thousands(m.threads) + " threads in " + thousands(m.groups.size()) + " groups";
}

std::string leaf_text(const timed_samples::Samples& s, const Group& g) {
  const std::string& st = s.stacks[g.stack];
  if (st.empty()) return "(no frames)";
  const size_t semi = st.rfind(';');
  return semi == std::string::npos ? st : st.substr(semi + 1);
}

std::string head_text(const timed_samples::Samples& s, const Group& g) {
  const size_t n = g.threads.size();
  return std::to_string(n) + (n == 1 ? " thread " : " threads ") + rank_here(g.rank) +
         " \u00b7 " + rank_why(g.rank, g.state) + " \u00b7 for up to " +
         duration_text(g.longest_ns) + " \u00b7 in " + leaf_text(s, g);
}

std::string thread_text(const timed_samples::Samples& s, const Group& g, const ThreadAt& t) {
  std::string how;
  if (t.since_ns == 0) {
    how = t.first ? "from this sample on (its first)" : "since this sample (the one before differs)";
  } else {
    how = std::string("for ") + (t.first ? "\u2265 " : "") + duration_text(t.since_ns) +
          (t.first ? " (since its first sample)" : "");
  }
  const timed_samples::Thread& th = s.threads[t.thread];
  return th.root + " (tid " + std::to_string(th.tid) + "): " + g.state + " " + how;
}

std::string moment_text(const timed_samples::Samples& s, const Moment& m) {
  std::string out = title_text(s, m) + "\n" + info_text(s, m) + "\n";
  for (const Group& g : m.groups) {
    out += "\n" + head_text(s, g) + "\n";
    const std::vector<std::string_view> frames = stack_frames(s.stacks[g.stack]);
    for (size_t i = frames.size(); i-- > 0;) out += "    " + std::string(frames[i]) + "\n";
    for (const ThreadAt& t : g.threads) out += "  " + thread_text(s, g, t) + "\n";
  }
  return out;
}

}  // namespace hearth::moment
