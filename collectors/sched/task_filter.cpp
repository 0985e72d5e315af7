#include "collectors/sched/task_filter.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace hearth::sched {

std::vector<TidRange> tid_ranges(std::vector<pid_t> tids) {
  std::sort(tids.begin(), tids.end());
  std::vector<TidRange> ranges;
  for (pid_t t : tids) {
    if (t <= 0) continue;
    if (!ranges.empty() && t <= ranges.back().hi) continue;  // duplicate
    if (!ranges.empty() && t == ranges.back().hi + 1) {
      ranges.back().hi = t;
    } else {
      ranges.push_back({t, t});
    }
  }
  return ranges;
}

std::vector<TidRange> bridge_free_gaps(std::vector<TidRange> ranges,
                                       const std::function<bool(pid_t)>& free) {
  std::vector<TidRange> out;
  for (const TidRange& r : ranges) {
    if (!out.empty()) {
      TidRange& last = out.back();
      const pid_t gap = r.lo - last.hi - 1;  // ranges are sorted and disjoint: gap >= 1
      bool bridge = gap <= kMaxBridgedGap;
      for (pid_t t = last.hi + 1; bridge && t < r.lo; ++t) bridge = free(t);
      if (bridge) {
        last.hi = r.hi;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

bool tid_is_free(pid_t tid) {
  std::string path = "/proc/" + std::to_string(tid);
  return ::access(path.c_str(), F_OK) != 0 && errno == ENOENT;
}

size_t filter_comparisons(const std::vector<TidRange>& ranges) {
  size_t n = 0;
  for (const TidRange& r : ranges) n += r.lo == r.hi ? 1 : 2;
  return n;
}

std::string filter_expression(const std::vector<TidRange>& ranges,
                              const std::vector<std::string_view>& fields) {
  std::string out;
  for (std::string_view field : fields) {
    for (const TidRange& r : ranges) {
      if (!out.empty()) out += "||";
      std::string f(field);
      if (r.lo == r.hi) {
        out += f;
        out += "==";
        out += std::to_string(r.lo);
      } else {
        out += '(';
        out += f;
        out += ">=";
        out += std::to_string(r.lo);
        out += "&&";
        out += f;
        out += "<=";
        out += std::to_string(r.hi);
        out += ')';
      }
    }
  }
  return out;
}

std::string filter_and(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::string out = "(";
  out += a;
  out += ")&&(";
  out += b;
  out += ')';
  return out;
}

}  // namespace hearth::sched
