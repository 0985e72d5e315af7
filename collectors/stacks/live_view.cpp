#include "collectors/stacks/live_view.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace hearth::stacks {
namespace {

std::string fit(std::string s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 2) return s.substr(0, width);
  return s.substr(0, width - 2) + "..";
}

// "root;a;b;leaf" -> thread "root" and "leaf < b < a".
void split_stack(std::string_view stack, std::string* thread, std::string* leaf_first) {
  size_t semi = stack.find(';');
  *thread = std::string(stack.substr(0, semi));
  leaf_first->clear();
  if (semi == std::string_view::npos) return;
  std::string_view rest = stack.substr(semi + 1);
  bool in_kernel = false;  // a run of kernel frames shows as its leaf and "..."
  while (!rest.empty()) {
    size_t last = rest.rfind(';');
    std::string_view frame = last == std::string_view::npos ? rest : rest.substr(last + 1);
    bool kernel = frame.ends_with("_[k]");
    if (kernel && in_kernel) {
      if (!leaf_first->ends_with("...")) *leaf_first += " ...";
    } else {
      if (!leaf_first->empty()) *leaf_first += " < ";
      *leaf_first += frame;
    }
    in_kernel = kernel;
    if (last == std::string_view::npos) break;
    rest = rest.substr(0, last);
  }
}

}  // namespace

std::string render_live_view(const StackCounts& counts, const LiveStatus& s, int cols, int rows) {
  if (cols < 20 || rows < 3)
    return fit("hearth: terminal too small", static_cast<size_t>(std::max(cols, 0))) + "\n";
  size_t width = static_cast<size_t>(cols);
  std::vector<std::string> lines;
  char buf[256];
  char target[96];
  if (s.processes > 0) {
    std::snprintf(target, sizeof target, "%zu process%s", s.processes,
                  s.processes == 1 ? "" : "es");
  } else {
    std::snprintf(target, sizeof target, "pid %d (%s)", s.pid, s.process_name.c_str());
  }
  std::snprintf(buf, sizeof buf,
                "hearth stacks  %s  %llu samples x %zu threads  %.0f s  stall median "
                "%.2f ms, max %.2f ms  q: quit",
                target, static_cast<unsigned long long>(s.samples), s.threads, s.elapsed_s,
                s.stall_median_ms, s.stall_max_ms);
  lines.push_back(fit(buf, width));
  // Roles of unnamed threads ("[mariadbd:handle_one_connection tid=27618]") are long: a wide
  // terminal gives the thread column more room.
  const int thread_width = cols >= 160 ? 44 : cols >= 120 ? 32 : 20;
  std::snprintf(buf, sizeof buf, "    %%   SAMPLES  %-*s  STACK (leaf first)", thread_width,
                "THREAD");
  lines.push_back(fit(buf, width));
  size_t room = static_cast<size_t>(rows) - lines.size();
  std::string thread, leaf_first;
  for (const StackCounts::Entry& e : counts.top(room)) {
    split_stack(e.stack, &thread, &leaf_first);
    double pct = counts.total()
                     ? 100.0 * static_cast<double>(e.count) / static_cast<double>(counts.total())
                     : 0;
    std::snprintf(buf, sizeof buf, "%5.1f %9llu  %-*s  ", pct,
                  static_cast<unsigned long long>(e.count), thread_width,
                  fit(thread, static_cast<size_t>(thread_width)).c_str());
    lines.push_back(fit(buf + leaf_first, width));
  }
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace hearth::stacks
