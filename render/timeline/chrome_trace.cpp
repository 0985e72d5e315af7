#include "render/timeline/chrome_trace.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/atomic_file.h"
#include "render/page/page_text.h"

namespace hearth::timeline {
namespace {

using page::append_json_string;
using sched_intervals::Interval;
using sched_intervals::Slot;
using sched_intervals::StateClass;

constexpr size_t kTraceChunkBytes = size_t{1} << 20;

// Times are written in units of 1/1024 µs (0.98 ns): such a number of µs is a binary fraction,
// which a reader's double holds exactly, so ts + dur (added as doubles by speedscope, by ns in
// Perfetto after truncating each) lands exactly on the next interval's ts, never past it, where
// a decimal of the ns ("22275482459.613") is rounded and may overlap the next by a hair. A unit
// under 1 ns keeps every ns: round(µs × 1000) gives the ns back.
uint64_t to_units(uint64_t ns) {
  // round(ns × 1024 / 1000) = round(ns × 128 / 125), without overflow: 125 is odd, so no tie.
  return ns / 125 * 128 + (ns % 125 * 128 + 62) / 125;
}

// UNITS (1/1024 µs) as µs, exactly: "1234.5009765625", "17" when whole.
void append_units(std::string* out, uint64_t units) {
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%" PRIu64, units >> 10);
  if (uint64_t frac = units & 1023; frac != 0) {
    // frac / 1024 = frac × 9765625 / 10^10: ten digits, trailing zeros dropped.
    n += std::snprintf(buf + n, sizeof buf - n, ".%010" PRIu64, frac * 9765625);
    while (buf[n - 1] == '0') --n;
  }
  out->append(buf, static_cast<size_t>(n));
}

void append_int(std::string* out, int64_t v) {
  out->append(std::to_string(v));
}

// The name of an interval's event: its state's class, the kernel's letter with "other".
std::string state_event_name(char state) {
  const StateClass cls = sched_intervals::state_class(state);
  std::string name = class_name(static_cast<int>(cls));
  if (cls == StateClass::kOther) name += std::string(" (") + state + ")";
  return name;
}

// chrome://tracing's reserved colour for STATE (its thread-state colours).
const char* state_cname(char state) {
  switch (sched_intervals::state_class(state)) {
    case StateClass::kOnCpu:
      return "thread_state_running";
    case StateClass::kRunnable:
      return "thread_state_runnable";
    case StateClass::kSleeping:
      return "thread_state_sleeping";
    case StateClass::kBlocked:
      return "thread_state_uninterruptible";
    default:
      return "thread_state_unknown";
  }
}

// Splits ';'-joined frames (root first).
std::vector<std::string_view> split_frames(std::string_view stack) {
  std::vector<std::string_view> out;
  if (stack.empty()) return out;
  size_t at = 0;
  while (true) {
    size_t semi = stack.find(';', at);
    out.push_back(stack.substr(at, semi == std::string_view::npos ? semi : semi - at));
    if (semi == std::string_view::npos) break;
    at = semi + 1;
  }
  return out;
}

// The "stackFrames" dictionary: one id per path from the root, built as stacks are met.
class FrameIds {
 public:
  // The id of STACK's leaf; 0 for an empty stack (no frame).
  uint32_t leaf(std::string_view stack) {
    uint32_t parent = 0;
    for (std::string_view f : split_frames(stack)) {
      key_.assign(std::to_string(parent));
      key_.push_back('\0');
      key_.append(f);
      auto [it, added] = ids_.try_emplace(key_, static_cast<uint32_t>(frames_.size() + 1));
      if (added) frames_.push_back({std::string(f), parent});
      parent = it->second;
    }
    return parent;
  }

  void append_json(std::string* out) const {
    out->append("{");
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (i > 0) out->append(",");
      out->append("\n\"");
      append_int(out, static_cast<int64_t>(i + 1));
      out->append("\":{\"name\":");
      append_json_string(out, frames_[i].name);
      if (frames_[i].parent != 0) {
        out->append(",\"parent\":\"");
        append_int(out, frames_[i].parent);
        out->append("\"");
      }
      out->append("}");
    }
    out->append("}");
  }

 private:
  struct Frame {
    std::string name;
    uint32_t parent = 0;  // 0: a root
  };
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<Frame> frames_;
  std::string key_;
};

class TraceWriter {
 public:
  TraceWriter(const Model& m, const Names& names, const std::function<void(std::string_view)>& out)
      : m_(m), names_(names), out_(out), zero_(m.start_ns) {}

  void write(const TraceOptions& options) {
    buf_.append("{\"traceEvents\":[");
    for (const Process& p : m_.processes) {
      // Threads of no known process are each their own (trace_pid), unnamed.
      if (p.groups.empty() || p.pid == 0) continue;
      const int64_t pid = trace_pid(m_.lanes[p.groups.front().lanes.front()]);
      begin_event();
      buf_.append("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
      append_int(&buf_, pid);
      buf_.append(",\"tid\":");
      append_int(&buf_, pid);
      buf_.append(",\"ts\":0,\"args\":{\"name\":");
      append_json_string(&buf_, p.name.empty() ? "pid " + std::to_string(p.pid) : p.name);
      buf_.append("}}");
    }
    for (size_t i = 0; i < m_.lanes.size(); ++i) write_lane(m_.lanes[i], i);
    buf_.append("\n],\n\"stackFrames\":");
    frames_.append_json(&buf_);
    buf_.append(",\n\"otherData\":{\"producer\":\"hearth\",\"source\":");
    append_json_string(&buf_, options.source);
    buf_.append(",\"clock\":\"CLOCK_MONOTONIC\",\"ts_zero_mono_ns\":\"");
    append_int(&buf_, static_cast<int64_t>(zero_));
    buf_.append("\",\"window_start_ns\":\"");
    append_int(&buf_, static_cast<int64_t>(m_.window_start_ns));
    buf_.append("\",\"window_end_ns\":\"");
    append_int(&buf_, static_cast<int64_t>(m_.window_end_ns));
    buf_.append("\",\"whole_from_ns\":\"");
    append_int(&buf_, static_cast<int64_t>(m_.whole_from_ns));
    buf_.append("\"");
    if (m_.samples != nullptr && m_.samples->real_ns != 0 && m_.samples_aligned) {
      // The wall clock at the samples' time 0, and that time on CLOCK_MONOTONIC.
      buf_.append(",\"samples_mono_ns\":\"");
      append_int(&buf_, static_cast<int64_t>(m_.samples_mono_ns));
      buf_.append("\",\"samples_real_ns\":\"");
      append_int(&buf_, static_cast<int64_t>(m_.samples->real_ns));
      buf_.append("\"");
    }
    buf_.append("}}\n");
    out_(buf_);
    buf_.clear();
  }

 private:
  uint64_t since_zero(uint64_t t) const { return t > zero_ ? t - zero_ : 0; }

  // A thread of no known process is its own process.
  static int64_t trace_pid(const Lane& l) { return l.pid > 0 ? l.pid : l.tid; }

  void begin_event() {
    if (buf_.size() >= kTraceChunkBytes) {
      out_(buf_);
      buf_.clear();
    }
    buf_.append(first_ ? "\n" : ",\n");
    first_ = false;
  }

  // `"ph":"X","pid":P,"tid":T,"ts":…,"dur":…` and the rest by the caller.
  void begin_complete(const Lane& l, uint64_t start, uint64_t end) {
    begin_event();
    buf_.append("{\"ph\":\"X\",\"pid\":");
    append_int(&buf_, trace_pid(l));
    buf_.append(",\"tid\":");
    append_int(&buf_, l.tid);
    buf_.append(",\"ts\":");
    append_units(&buf_, to_units(since_zero(start)));
    buf_.append(",\"dur\":");
    // The difference of the two ends' units: adjacent intervals stay adjacent.
    append_units(&buf_, to_units(since_zero(end)) - to_units(since_zero(start)));
  }

  void write_lane(const Lane& l, size_t index) {
    const int64_t pid = trace_pid(l);
    begin_event();
    buf_.append("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
    append_int(&buf_, pid);
    buf_.append(",\"tid\":");
    append_int(&buf_, l.tid);
    buf_.append(",\"ts\":0,\"args\":{\"name\":");
    append_json_string(&buf_, l.name);
    buf_.append("}}");
    begin_event();
    buf_.append("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
    append_int(&buf_, pid);
    buf_.append(",\"tid\":");
    append_int(&buf_, l.tid);
    buf_.append(",\"ts\":0,\"args\":{\"sort_index\":");
    append_int(&buf_, static_cast<int64_t>(index));
    buf_.append("}}");

    // Slots, then intervals (slots end where the intervals kept whole begin), merged with the
    // samples by time; at one time the interval or slot first, so the sample nests in it.
    size_t tick = 0;
    auto ticks_before = [&](uint64_t t, bool inclusive) {
      while (tick < l.ticks.size() &&
             (l.ticks[tick].time_ns < t || (inclusive && l.ticks[tick].time_ns == t))) {
        write_tick(l, l.ticks[tick++]);
      }
    };
    if (m_.slots != nullptr) {
      for (size_t i = l.slot_first; i < l.slot_first + l.slot_count; ++i) {
        const Slot& s = m_.slots->slots[i];
        ticks_before(s.slot_start_ns, false);
        write_slot(l, s);
      }
    }
    if (m_.intervals != nullptr) {
      for (size_t i = l.first; i < l.first + l.count; ++i) {
        const Interval& r = m_.intervals->intervals[i];
        ticks_before(r.start_ns, false);
        write_interval(l, r);
      }
    }
    ticks_before(UINT64_MAX, true);
  }

  void write_slot(const Lane& l, const Slot& s) {
    begin_complete(l, s.slot_start_ns, s.slot_start_ns + m_.slot_ns);
    buf_.append(",\"name\":\"slot\",\"cat\":\"sched.slot\",\"args\":{");
    const std::pair<const char*, uint64_t> fields[] = {
        {"on_cpu_ns", s.on_cpu_ns},     {"runnable_ns", s.runnable_ns},
        {"sleeping_ns", s.sleeping_ns}, {"blocked_ns", s.blocked_ns},
        {"stopped_ns", s.stopped_ns},   {"other_ns", s.other_ns},
        {"switches", s.switches}};
    bool first = true;
    for (const auto& [key, value] : fields) {
      if (!first) buf_.append(",");
      first = false;
      buf_.append("\"").append(key).append("\":");
      append_int(&buf_, static_cast<int64_t>(value));
    }
    if (s.slot_start_ns < m_.untraced_until_ns && m_.intervals != nullptr) {
      // Not the tracer's: read from another source before it (hearth watch's /proc reads).
      buf_.append(",\"source\":");
      append_json_string(&buf_, m_.intervals->header.untraced.source);
    }
    buf_.append("}}");
  }

  void write_interval(const Lane& l, const Interval& r) {
    begin_complete(l, r.start_ns, r.end_ns);
    buf_.append(",\"name\":");
    append_json_string(&buf_, state_event_name(r.state));
    buf_.append(",\"cat\":\"sched\",\"cname\":\"").append(state_cname(r.state));
    buf_.append("\",\"args\":{\"state\":");
    append_json_string(&buf_, std::string_view(&r.state, 1));
    if (r.cpu >= 0) {
      buf_.append(",\"cpu\":");
      append_int(&buf_, r.cpu);
    }
    if (r.by >= 0) {
      // README's `by`: for R the preemptor; for another off-CPU state the waker.
      const char* role = r.state == sched_intervals::kStateRunnable ? "preemptor" : "waker";
      buf_.append(",\"").append(role).append("\":");
      append_json_string(&buf_, who(names_, r.by));
      buf_.append(",\"").append(role).append("_tid\":");
      append_int(&buf_, r.by);
    }
    buf_.append("}}");
  }

  void write_tick(const Lane& l, const Tick& t) {
    const std::string& stack = m_.samples->stacks[t.stack];
    const std::vector<std::string_view> frames = split_frames(stack);
    const uint32_t sf = frames_.leaf(stack);
    begin_event();
    buf_.append("{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
    append_int(&buf_, trace_pid(l));
    buf_.append(",\"tid\":");
    append_int(&buf_, l.tid);
    buf_.append(",\"ts\":");
    append_units(&buf_, to_units(since_zero(t.time_ns)));
    buf_.append(",\"name\":");
    append_json_string(&buf_, frames.empty() ? std::string_view("sample") : frames.back());
    buf_.append(",\"cat\":\"stack\"");
    if (sf != 0) {
      buf_.append(",\"sf\":\"");
      append_int(&buf_, sf);
      buf_.append("\"");
    }
    buf_.append(",\"args\":{\"state\":");
    append_json_string(&buf_, std::string_view(&t.state, 1));
    buf_.append(",\"stack\":[");
    for (size_t i = frames.size(); i-- > 0;) {
      append_json_string(&buf_, frames[i]);
      if (i > 0) buf_.append(",");
    }
    buf_.append("]}}");
  }

  const Model& m_;
  const Names& names_;
  const std::function<void(std::string_view)>& out_;
  // ts 0: the model's start (the window's, or an earlier first sample), CLOCK_MONOTONIC ns.
  const uint64_t zero_;
  FrameIds frames_;
  std::string buf_;
  bool first_ = true;
};

}  // namespace

void write_chrome_trace(const Model& model, const Names& names, const TraceOptions& options,
                        const std::function<void(std::string_view)>& out) {
  TraceWriter(model, names, out).write(options);
}

std::string chrome_trace(const Model& model, const Names& names, const TraceOptions& options) {
  std::string all;
  write_chrome_trace(model, names, options, [&](std::string_view piece) { all.append(piece); });
  return all;
}

bool is_chrome_trace_path(std::string_view path) {
  return path.ends_with(".trace.json");
}

Result<void> write_chrome_trace_file(const Model& model, const Names& names,
                                     const TraceOptions& options, const std::string& path) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
  write_chrome_trace(model, names, options, [&](std::string_view piece) { file.write(piece); });
  return file.commit();
}

}  // namespace hearth::timeline
