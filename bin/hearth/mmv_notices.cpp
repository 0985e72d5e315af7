#include "bin/hearth/mmv_notices.h"

#include <utility>

namespace hearth::cli {
namespace {

std::string count_of(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

MmvNotices::MmvNotices(std::function<void(const std::string&)> print, uint64_t quiet_ns)
    : print_(std::move(print)), quiet_ns_(quiet_ns) {}

void MmvNotices::on_event(uint64_t t, const std::string& path, mmv::EventKind kind,
                          std::string_view detail) {
  if (kind == mmv::EventKind::kReadable) {
    auto it = files_.find(path);
    if (it == files_.end() || !it->second.bad_line_printed) return;  // its start went unsaid
    it->second.bad_line_printed = false;
    print_(std::string(detail));
    return;
  }
  if (kind != mmv::EventKind::kError) return;
  FileState& f = files_[path];
  if (f.printed_any && t < f.quiet_until_ns) {
    ++f.unreported;
    f.bad_line_printed = false;
    return;
  }
  const std::string quiet_s = std::to_string(quiet_ns_ / 1'000'000'000);
  if (f.printed_any && t >= f.last_bad_line_ns && t - f.last_bad_line_ns < quiet_ns_) {
    // Bad again soon after the last line: it flaps. Said once, then counted for a while.
    print_(std::string(detail) + " (bad again: it keeps going bad and coming back; not reported " +
           "for the next " + quiet_s + " s, counted at the end)");
    f.quiet_until_ns = t + quiet_ns_;
    f.bad_line_printed = false;
  } else {
    std::string line(detail);
    if (f.unreported > 0) {
      line +=
          " (bad " + count_of(f.unreported, "more time", "more times") + " since the last line)";
    }
    print_(line);
    f.bad_line_printed = true;
  }
  f.printed_any = true;
  f.last_bad_line_ns = t;
  f.unreported = 0;
}

void MmvNotices::finish(const std::map<std::string, mmv::Trouble>& troubles) {
  for (const auto& [path, t] : troubles) {
    if (t.episodes == 0) continue;
    std::string line = path + " was unreadable " + count_of(t.episodes, "time", "times") + ", " +
                       count_of(t.lost, "sample", "samples") + " lost";
    if (t.unreadable) {
      std::string_view why = t.reason;
      if (why.starts_with(path + ": ")) why.remove_prefix(path.size() + 2);
      line += "; still unreadable at the end: ";
      line += why;
    }
    print_(line);
  }
}

}  // namespace hearth::cli
