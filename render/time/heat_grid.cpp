#include "render/time/heat_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace hearth::heat {
namespace {

using timed_samples::Samples;

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kMinute = 60 * kSecond;

// Which threads pass the filter, by index into Samples::threads.
std::vector<uint8_t> threads_passing(const Samples& s, const Pattern* only) {
  std::vector<uint8_t> pass(s.threads.size(), 1);
  if (only == nullptr) return pass;
  for (size_t i = 0; i < s.threads.size(); ++i) pass[i] = only->search(s.threads[i].root);
  return pass;
}

// The smallest step of STEPS at least WANT that divides COLUMN; COLUMN when none does.
uint64_t step_at_least(uint64_t want, const std::vector<uint64_t>& steps, uint64_t column) {
  for (uint64_t s : steps) {
    if (s >= want && column % s == 0) return s;
  }
  return column;
}

}  // namespace

StateClass state_class(char state) {
  switch (state) {
    case 'R':
      return StateClass::kRunning;
    case 'D':
      return StateClass::kBlocked;
    case 'S':
      return StateClass::kSleeping;
    default:
      return StateClass::kOther;
  }
}

Span span_of(const Samples& s) {
  Span sp;
  if (s.rounds.empty()) return sp;
  std::unordered_map<int64_t, uint64_t> last;  // pid -> time of its last round
  std::vector<uint64_t> gaps;
  for (const timed_samples::Round& r : s.rounds) {
    auto [it, added] = last.try_emplace(r.pid, r.time_ns);
    if (!added) {
      gaps.push_back(r.time_ns - it->second);
      it->second = r.time_ns;
    }
  }
  if (!gaps.empty()) {
    auto mid = gaps.begin() + static_cast<long>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    sp.interval_ns = *mid;
  }
  sp.duration_ns = s.rounds.back().time_ns + sp.interval_ns;
  return sp;
}

Result<Layout> choose_layout(const Samples& s, uint64_t row_ns, uint32_t rows) {
  const Span sp = span_of(s);
  Layout l;
  const bool long_recording = sp.duration_ns > kLongRecordingNs;
  const uint64_t column = long_recording ? kMinute : kSecond;
  if (row_ns == 0 && rows == 0) {
    const std::vector<uint64_t> steps =
        long_recording
            ? std::vector<uint64_t>{kSecond, 2 * kSecond, 5 * kSecond, 10 * kSecond,
                                    15 * kSecond, 20 * kSecond, 30 * kSecond}
            : std::vector<uint64_t>{20 * kMs, 25 * kMs, 50 * kMs, 100 * kMs, 200 * kMs, 250 * kMs,
                                    500 * kMs};
    l.row_ns = step_at_least(sp.interval_ns, steps, column);
    l.rows = static_cast<uint32_t>(column / l.row_ns);
    std::vector<std::string> why;
    if (long_recording) why.push_back("a recording of " + duration_text(sp.duration_ns));
    if (l.row_ns > (long_recording ? kSecond : 20 * kMs)) {
      why.push_back("samples every " + duration_text(sp.interval_ns));
    }
    l.chosen = why.empty() ? "the defaults" : why.size() == 1 ? why[0] : why[0] + ", " + why[1];
  } else if (rows == 0) {
    l.row_ns = row_ns;
    l.rows = static_cast<uint32_t>(std::max<uint64_t>(1, column / row_ns));
    l.chosen = "the " + duration_text(column) + " column";
  } else if (row_ns == 0) {
    l.rows = rows;
    l.row_ns = std::max<uint64_t>(1, column / rows);
    l.chosen = "the " + duration_text(column) + " column";
  } else {
    l.row_ns = row_ns;
    l.rows = rows;
  }
  const uint64_t col_ns = l.column_ns();
  const uint64_t columns = sp.duration_ns == 0 ? 1 : (sp.duration_ns + col_ns - 1) / col_ns;
  if (columns * l.rows > kMaxCells) {
    return fail("the grid would have " + std::to_string(columns * l.rows) + " cells (" +
                std::to_string(columns) + " columns of " + std::to_string(l.rows) +
                " rows), more than " + std::to_string(kMaxCells) +
                ": choose a larger --bucket or fewer --rows");
  }
  // The last sample's column exists even when the span ends exactly on a column's edge.
  const uint64_t last_column = s.rounds.empty() ? 0 : s.rounds.back().time_ns / col_ns;
  l.columns = static_cast<uint32_t>(std::max(columns, last_column + 1));
  return l;
}

uint32_t Grid::total(size_t cell) const {
  uint32_t t = 0;
  for (const auto& c : counts) t += c[cell];
  return t;
}

Grid build_grid(const Samples& s, const Layout& layout, const Pattern* only) {
  Grid g;
  g.layout = layout;
  const size_t cells = static_cast<size_t>(layout.columns) * layout.rows;
  for (auto& c : g.counts) c.assign(cells, 0);
  const std::vector<uint8_t> pass = threads_passing(s, only);
  std::vector<uint8_t> seen(s.threads.size(), 0);
  const uint64_t col_ns = layout.column_ns();
  timed_samples::expand(s, [&](size_t round, std::span<const timed_samples::Sample> threads) {
    const uint64_t t = s.rounds[round].time_ns;
    const uint64_t column = t / col_ns;
    if (column >= layout.columns) return;
    const size_t cell = column * layout.rows + (t % col_ns) / layout.row_ns;
    for (const timed_samples::Sample& x : threads) {
      if (!pass[x.thread]) continue;
      seen[x.thread] = 1;
      ++g.counts[static_cast<size_t>(state_class(x.state))][cell];
      ++g.samples;
    }
  });
  for (size_t i = 0; i < cells; ++i) g.max_cell = std::max(g.max_cell, g.total(i));
  g.threads = static_cast<size_t>(std::count(seen.begin(), seen.end(), 1));
  return g;
}

std::string range_folded(const Samples& s, uint64_t from_ns, uint64_t to_ns, const Pattern* only,
                         std::optional<StateClass> state) {
  const std::vector<uint8_t> pass = threads_passing(s, only);
  std::unordered_map<uint64_t, uint64_t> counts;  // thread << 32 | stack -> samples
  timed_samples::expand(s, [&](size_t round, std::span<const timed_samples::Sample> threads) {
    const uint64_t t = s.rounds[round].time_ns;
    if (t < from_ns || t >= to_ns) return;
    for (const timed_samples::Sample& x : threads) {
      if (!pass[x.thread] || (state && state_class(x.state) != *state)) continue;
      ++counts[(uint64_t{x.thread} << 32) | x.stack];
    }
  });
  // Two threads may share a root (a tid seen again under its old name): their lines merge.
  std::map<std::string, uint64_t> lines;
  for (const auto& [key, n] : counts) {
    const timed_samples::Thread& th = s.threads[key >> 32];
    const std::string& stack = s.stacks[key & 0xffffffffu];
    lines[stack.empty() ? th.root : th.root + ";" + stack] += n;
  }
  std::string out;
  for (const auto& [line, n] : lines) out += line + " " + std::to_string(n) + "\n";
  return out;
}

std::string duration_text(uint64_t ns) {
  if (ns == 0) return "0 s";
  struct Unit {
    uint64_t ns;
    const char* name;
  };
  for (Unit u : {Unit{3600 * kSecond, "h"}, Unit{kMinute, "min"}, Unit{kSecond, "s"},
                 Unit{kMs, "ms"}, Unit{1000, "\xc2\xb5s"}}) {
    if (ns >= u.ns) {
      if (ns % u.ns == 0) return std::to_string(ns / u.ns) + " " + u.name;
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.3g %s", static_cast<double>(ns) / u.ns, u.name);
      return buf;
    }
  }
  return std::to_string(ns) + " ns";
}

uint64_t parse_duration(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  if (i == 0) return 0;
  char* end = nullptr;
  const std::string number = text.substr(0, i);
  double v = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0' || !(v > 0)) return 0;
  const std::string unit = text.substr(i);
  double scale;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us" || unit == "\xc2\xb5s") {
    scale = 1e3;
  } else if (unit == "ms" || unit.empty()) {
    scale = 1e6;
  } else if (unit == "s") {
    scale = 1e9;
  } else if (unit == "m" || unit == "min") {
    scale = 60e9;
  } else if (unit == "h") {
    scale = 3600e9;
  } else {
    return 0;
  }
  double ns = std::round(v * scale);
  if (!(ns >= 1 && ns < 1e18)) return 0;
  return static_cast<uint64_t>(ns);
}

}  // namespace hearth::heat
