// Fuzz target for the scheduler intervals reader (formats/sched_intervals.h).
//
// Input: the file's text. Invariants checked (abort with context on failure):
// - an error is one line, starts with the file's name (and, but for an empty file, a line
//   number), and quotes nothing unprintable; the lenient reader stops at the same problem;
// - a parsed file keeps the promises of its header comment: intervals non-empty, inside the kept
//   window, by tid then start, not overlapping within a thread, `thread_first` pointing at each
//   thread's first; slots on slot boundaries before whole_from, each at most a slot long;
// - written back by the writer and read again, the file comes back the same;
// - intervals_at returns, per thread, the interval holding the instant.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/sched_intervals.h"

namespace si = hearth::sched_intervals;

namespace {

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "sched_intervals_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool same(const si::Interval& a, const si::Interval& b) {
  return a.tid == b.tid && a.pid == b.pid && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
         a.state == b.state && a.cpu == b.cpu && a.by == b.by;
}

bool same(const si::Slot& a, const si::Slot& b) {
  return a.tid == b.tid && a.pid == b.pid && a.slot_start_ns == b.slot_start_ns &&
         a.on_cpu_ns == b.on_cpu_ns && a.runnable_ns == b.runnable_ns &&
         a.sleeping_ns == b.sleeping_ns && a.blocked_ns == b.blocked_ns &&
         a.stopped_ns == b.stopped_ns && a.other_ns == b.other_ns && a.switches == b.switches;
}

// The file as the writer writes it.
std::string rewritten(const si::IntervalsFile& f) {
  hearth::sched_tsv::SchedHeader h;
  h.window_start_ns = f.header.window_start_ns;
  h.window_end_ns = f.header.window_end_ns;
  h.lost = f.header.lost;
  std::string out = si::format_header(f.header.kind, h, f.header.kept);
  for (const si::Interval& r : f.intervals) si::append_interval(&out, r);
  for (const si::Slot& r : f.slots) si::append_slot(&out, r);
  si::append_end(&out, f.intervals.size() + f.slots.size());
  return out;
}

void check_rows(const si::IntervalsFile& f) {
  const si::Header& h = f.header;
  size_t thread = 0;
  for (size_t i = 0; i < f.intervals.size(); ++i) {
    const si::Interval& r = f.intervals[i];
    if (r.start_ns >= r.end_ns) die("an empty interval accepted");
    if (r.start_ns < h.kept.whole_from_ns || r.end_ns > h.window_end_ns)
      die("an interval outside the kept window accepted");
    if (r.tid <= 0 || !si::valid_state(r.state)) die("a bad tid or state accepted");
    const bool first = i == 0 || f.intervals[i - 1].tid != r.tid;
    if (first) {
      if (thread >= f.thread_first.size() || f.thread_first[thread] != i)
        die("thread_first misses a thread");
      ++thread;
    } else if (f.intervals[i - 1].end_ns > r.start_ns) {
      die("overlapping intervals accepted");
    }
    if (i > 0 && f.intervals[i - 1].tid > r.tid) die("unsorted tids accepted");
  }
  if (thread != f.thread_first.size()) die("thread_first has extra entries");
  for (size_t i = 0; i < f.slots.size(); ++i) {
    const si::Slot& s = f.slots[i];
    if (s.slot_start_ns < h.window_start_ns || s.slot_start_ns >= h.kept.whole_from_ns ||
        (s.slot_start_ns - h.window_start_ns) % h.kept.slot_ns != 0)
      die("a slot off its boundaries accepted");
    if (i > 0 && (f.slots[i - 1].tid > s.tid ||
                  (f.slots[i - 1].tid == s.tid && f.slots[i - 1].slot_start_ns >= s.slot_start_ns)))
      die("unsorted slots accepted");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "in/sched.intervals.tsv";
  hearth::Result<si::IntervalsFile> f = si::parse_intervals(text, path);
  hearth::Error problem;
  si::IntervalsFile prefix = si::parse_intervals_prefix(text, path, &problem);
  if (!f) {
    const std::string& m = f.error().message;
    if (!m.starts_with(path + ":")) die("error does not name the file", m);
    if (m.find('\n') != std::string::npos) die("error is not one line", m);
    for (char c : m) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f) die("error quotes an unprintable byte", m);
    }
    if (problem.message != m) die("the lenient reader stops elsewhere", problem.message);
    check_rows(prefix);  // what it kept keeps the promises too
    return 0;
  }
  if (!problem.message.empty()) die("the lenient reader finds a problem", problem.message);
  check_rows(*f);
  std::string again = rewritten(*f);
  hearth::Result<si::IntervalsFile> g = si::parse_intervals(again, path);
  if (!g) die("the writer's output does not read back", g.error().message);
  if (g->intervals.size() != f->intervals.size() || g->slots.size() != f->slots.size() ||
      g->header.kind != f->header.kind ||
      g->header.kept.whole_from_ns != f->header.kept.whole_from_ns ||
      g->header.kept.slot_ns != f->header.kept.slot_ns)
    die("the round trip changed the file's shape", again);
  for (size_t i = 0; i < f->intervals.size(); ++i)
    if (!same(f->intervals[i], g->intervals[i])) die("the round trip changed an interval", again);
  for (size_t i = 0; i < f->slots.size(); ++i)
    if (!same(f->slots[i], g->slots[i])) die("the round trip changed a slot", again);
  // The instant at each interval's start and just before its end: that interval.
  for (size_t i = 0; i < f->intervals.size() && i < 64; ++i) {
    const si::Interval& r = f->intervals[i];
    for (uint64_t t : {r.start_ns, r.end_ns - 1}) {
      bool found = false;
      for (const si::Interval& at : si::intervals_at(*f, t)) {
        if (at.start_ns > t || t >= at.end_ns) die("intervals_at returns one not holding T");
        found = found || same(at, r);
      }
      if (!found) die("intervals_at misses the interval holding T");
    }
  }
  return 0;
}
