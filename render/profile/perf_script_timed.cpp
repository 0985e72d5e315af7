#include "render/profile/perf_script_timed.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <span>
#include <unordered_map>
#include <vector>

namespace hearth::profile {
namespace {

// One sample as read, before the samples are put in time order.
struct TimedPerfSample {
  int64_t time_ns;
  int64_t pid;  // the round's process (the tid when perf did not print the pid)
  int64_t tid;
  uint32_t root;   // index into the roots
  uint32_t stack;  // the Builder's stack id
};

}  // namespace

Result<PerfTimed> perf_script_timed(std::string_view text, const std::string& path) {
  PerfTimed out;
  timed_samples::Builder builder(0, "", {}, 0, 0);
  std::vector<TimedPerfSample> samples;
  std::vector<std::string> roots;
  std::unordered_map<std::string, uint32_t> root_ids;
  uint64_t line_no = 0, header_line = 0;
  PerfScriptFolder* self = nullptr;
  PerfScriptFolder folder([&](std::string_view folded, int64_t time_ns) {
    if (time_ns < 0) {
      if (out.untimed_samples++ == 0) out.first_untimed_line = header_line;
      return;
    }
    const std::string& root = self->root();
    // "ROOT;FRAMES COUNT" or "ROOT COUNT"
    std::string_view frames = folded.substr(0, folded.rfind(' '));
    frames = frames.size() > root.size() ? frames.substr(root.size() + 1) : std::string_view();
    auto [it, added] = root_ids.try_emplace(root, static_cast<uint32_t>(roots.size()));
    if (added) roots.push_back(root);
    samples.push_back({time_ns, self->pid() >= 0 ? self->pid() : self->tid(), self->tid(),
                       it->second, builder.intern_stack(frames)});
  });
  self = &folder;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    ++line_no;
    if (!folder.add_line(line)) {
      if (out.ignored_lines++ == 0) out.first_ignored_line = line_no;
    }
    // After add_line: a header that ends the sample before it (no blank line between) is not
    // that sample's.
    if (!line.empty() && line.front() != ' ' && line.front() != '\t' && line.front() != '#') {
      header_line = line_no;
    }
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  folder.finish();
  if (samples.empty() && out.untimed_samples > 0) {
    return fail(path + ": line " + std::to_string(out.first_untimed_line) +
                ": a perf script sample without its time (print it with `perf script -F "
                "+time`): its samples cannot be placed in time");
  }
  if (samples.empty()) return fail(path + ": no perf script samples in it");
  out.stats = {folder.samples(), folder.other_event_samples(), folder.event(),
               folder.other_event()};

  std::stable_sort(
      samples.begin(), samples.end(),
      [](const TimedPerfSample& a, const TimedPerfSample& b) { return a.time_ns < b.time_ns; });
  const int64_t t0 = samples.front().time_ns;
  for (const TimedPerfSample& s : samples) {
    timed_samples::Builder::Entry e;
    e.tid = s.tid;
    e.root = roots[s.root];
    e.state = 'R';
    e.stack = s.stack;
    timed_samples::Round round;
    round.time_ns = static_cast<uint64_t>(s.time_ns - t0);
    round.pid = s.pid;
    builder.add(round, std::span<const timed_samples::Builder::Entry>(&e, 1));
  }
  out.samples = builder.take();
  return out;
}

bool file_looks_like_perf_script(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[64 << 10];
  ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (n <= 0) return false;
  std::string_view text(head, static_cast<size_t>(n));
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) break;  // a line cut by the 64 KiB: not looked at
    if (looks_like_perf_script(text.substr(0, nl))) return true;
    text.remove_prefix(nl + 1);
  }
  return false;
}

}  // namespace hearth::profile
