#include "render/live/live_view.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "formats/folded.h"

namespace hearth::live {
namespace {

std::string fit(std::string s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 2) return s.substr(0, width);
  return s.substr(0, width - 2) + "..";
}

// "a;b;leaf" (root first) -> "leaf < b < a"; a run of kernel frames shows as its leaf and
// "...".
std::string leaf_first(std::string_view frames) {
  std::string out;
  bool in_kernel = false;
  while (!frames.empty()) {
    size_t last = frames.rfind(';');
    std::string_view frame = last == std::string_view::npos ? frames : frames.substr(last + 1);
    bool kernel = frame.ends_with("_[k]");
    if (kernel && in_kernel) {
      if (!out.ends_with("...")) out += " ...";
    } else {
      if (!out.empty()) out += " < ";
      out += frame;
    }
    in_kernel = kernel;
    if (last == std::string_view::npos) break;
    frames = frames.substr(0, last);
  }
  return out;
}

// "1.25 s", "12.5 s", "125 s": how long a thread has been as it is.
std::string duration_text(double s) {
  char buf[32];
  if (s < 10) {
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  } else if (s < 100) {
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  }
  return buf;
}

// "88 more threads: 80 S, 8 R" for the threads that did not fit, states by count.
std::string more_threads(std::span<const ThreadRow> rest) {
  std::map<char, size_t> by_state;
  for (const ThreadRow& t : rest) ++by_state[t.state];
  std::vector<std::pair<char, size_t>> order(by_state.begin(), by_state.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string out =
      "... " + std::to_string(rest.size()) + " more thread" + (rest.size() == 1 ? "" : "s") + ":";
  for (size_t i = 0; i < order.size(); ++i) {
    out += i ? ", " : " ";
    out += std::to_string(order[i].second);
    out += ' ';
    out += order[i].first;
  }
  return out;
}

}  // namespace

std::string render(const Screen& s, int cols, int rows) {
  if (cols < 20 || rows < 3)
    return fit("hearth: terminal too small", static_cast<size_t>(std::max(cols, 0))) + "\n";
  size_t width = static_cast<size_t>(cols);
  std::vector<std::string> lines;
  lines.push_back(fit(s.header, width));
  // Roles of unnamed threads ("[mariadbd:handle_one_connection tid=27618]") are long: a wide
  // terminal gives the thread column more room.
  const int thread_width = cols >= 160 ? 44 : cols >= 120 ? 32 : 20;
  char buf[256];
  std::snprintf(buf, sizeof buf, "    %%   SAMPLES  %-*s  STACK (leaf first)", thread_width,
                "THREAD");
  lines.push_back(fit(buf, width));
  // The rows left, shared: the stacks take what the threads do not need, and at least half.
  const size_t room = static_cast<size_t>(rows) - lines.size();
  size_t stack_rows = std::min(s.stacks.size(), room);
  if (!s.threads.empty()) {
    size_t thread_need = 1 + s.threads.size();  // the title, then a line each
    stack_rows = std::min(s.stacks.size(), std::max(room / 2, room - std::min(room, thread_need)));
    if (room - stack_rows < 2) stack_rows = std::min(s.stacks.size(), room);  // no room: stacks
  }
  for (const StackRow& e : s.stacks.first(stack_rows)) {
    // The thread column: the root frame; in a profile of several processes, the thread root
    // under the process root when the process has threads of its own ("[app pid=7];[w tid=9]").
    size_t semi = e.stack.find(';');
    std::string_view thread = e.stack.substr(0, semi);
    if (semi != std::string_view::npos && formats::parse_process_root(thread)) {
      const size_t next = e.stack.find(';', semi + 1);
      std::string_view second = e.stack.substr(
          semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1);
      if (auto t = formats::parse_thread_root(second); t && t->tid >= 0) {
        thread = second;
        semi = next;
      }
    }
    std::string_view frames =
        semi == std::string_view::npos ? std::string_view() : e.stack.substr(semi + 1);
    double pct = s.total ? 100.0 * static_cast<double>(e.count) / static_cast<double>(s.total) : 0;
    std::snprintf(buf, sizeof buf, "%5.1f %9llu  %-*s  ", pct,
                  static_cast<unsigned long long>(e.count), thread_width,
                  fit(std::string(thread), static_cast<size_t>(thread_width)).c_str());
    lines.push_back(fit(buf + leaf_first(frames), width));
  }
  size_t thread_room = static_cast<size_t>(rows) - lines.size();
  if (!s.threads.empty() && thread_room >= 2) {
    std::snprintf(buf, sizeof buf, "STATE       FOR  %-*s  STACK (leaf first)", thread_width,
                  "THREAD");
    lines.push_back(fit(buf, width));
    --thread_room;
    size_t shown = s.threads.size() <= thread_room ? s.threads.size() : thread_room - 1;
    for (const ThreadRow& t : s.threads.first(shown)) {
      std::snprintf(buf, sizeof buf, "%5c %9s  %-*s  ", t.state, duration_text(t.for_s).c_str(),
                    thread_width,
                    fit(std::string(t.name), static_cast<size_t>(thread_width)).c_str());
      lines.push_back(fit(buf + leaf_first(t.frames), width));
    }
    if (shown < s.threads.size())
      lines.push_back(fit(more_threads(s.threads.subspan(shown)), width));
  }
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

std::string target_name(pid_t pid, const std::string& process_name, size_t processes) {
  char buf[128];
  if (processes > 0) {
    std::snprintf(buf, sizeof buf, "%zu process%s", processes, processes == 1 ? "" : "es");
    return buf;
  }
  return "pid " + std::to_string(pid) + " (" + process_name + ")";
}

std::string live_header(const LiveStatus& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "hearth stacks  %s  %llu samples x %zu threads  %.0f s  stall median "
                "%.2f ms, max %.2f ms  q: quit",
                target_name(s.pid, s.process_name, s.processes).c_str(),
                static_cast<unsigned long long>(s.samples), s.threads, s.elapsed_s,
                s.stall_median_ms, s.stall_max_ms);
  return buf;
}

}  // namespace hearth::live
