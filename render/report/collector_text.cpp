#include "render/report/collector_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "common/digits.h"
#include "render/report/html_text.h"

namespace hearth::report {
namespace {

using json = nlohmann::json;

// "10", "0.5", "1.25": a figure as short as it is exact to 3 decimals.
std::string short_number(double v) {
  std::string s = fixed(v, 3);
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) {
    const bool dot = s.back() == '.';
    s.pop_back();
    if (dot) break;
  }
  return s;
}

// "1 thread", "9 threads".
std::string count_of(uint64_t n, std::string_view one, std::string_view many) {
  return with_thousands(n) + " " + std::string(n == 1 ? one : many);
}

// Reads the figures a sentence uses, and remembers which keys were used.
class Figures {
 public:
  explicit Figures(const json& j) : j_(j) {}

  std::optional<double> number(const char* key) {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_number()) return std::nullopt;
    used_.insert(key);
    return it->get<double>();
  }
  std::optional<uint64_t> count(const char* key) {
    auto v = number(key);
    if (!v || *v < 0) return std::nullopt;
    return static_cast<uint64_t>(std::llround(*v));
  }
  std::optional<std::string> text(const char* key) {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_string()) return std::nullopt;
    used_.insert(key);
    return it->get<std::string>();
  }

  std::vector<std::string> texts(const char* key) {
    std::vector<std::string> out;
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_array()) return out;
    used_.insert(key);
    for (const json& v : *it) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
    return out;
  }

  // The scalar figures no sentence used, as "key value, …".
  std::string rest() const {
    std::string out;
    for (const auto& [k, v] : j_.items()) {
      if (k == "status" || k == "message" || used_.count(k) || v.is_object() || v.is_array())
        continue;
      std::string value;
      if (v.is_string()) {
        value = v.get<std::string>();
      } else if (v.is_boolean()) {
        value = v.get<bool>() ? "yes" : "no";
      } else if (v.is_number()) {
        value = short_number(v.get<double>());
      } else {
        value = v.dump();
      }
      out += (out.empty() ? "" : ", ") + k + " " + value;
    }
    return out;
  }

 private:
  const json& j_;
  std::set<std::string> used_;
};

// How many of the threads taken alone a sentence names; report.json keeps more.
constexpr size_t kAloneNamed = 5;

std::string stacks_text(Figures& f) {
  std::string out;
  auto samples = f.count("samples");
  auto hz = f.number("frequency_hz");
  auto threads = f.count("threads");
  auto stacks = f.count("stacks");
  // A set of processes (record --children, several -p, --comm): how many, and their comings and
  // goings; the stalls are then per process per sample.
  auto processes = f.count("processes");
  if (processes) {
    out += count_of(*processes, "process", "processes");
    auto joined = f.count("processes_joined");
    auto exited = f.count("processes_exited");
    if ((joined && *joined > 0) || (exited && *exited > 0)) {
      out += " (" + with_thousands(joined.value_or(0)) + " joined, " +
             with_thousands(exited.value_or(0)) + " exited during the window)";
    }
    out += ": ";
  }
  if (samples) {
    out += count_of(*samples, "sample", "samples");
    if (hz) out += " at " + short_number(*hz) + " Hz";
    if (threads) out += " of up to " + count_of(*threads, "thread", "threads");
    if (stacks) out += ": " + count_of(*stacks, "stack", "stacks");
    if (auto t = f.count("truncated_stacks"); t && *t > 0)
      out += " (" + with_thousands(*t) + " truncated: deeper than the frames kept)";
    out += ".";
  }
  if (auto skipped = f.count("skipped_threads"); skipped && *skipped > 0) {
    out += " " + with_thousands(*skipped) + (*skipped == 1 ? " time" : " times") +
           " a thread was skipped (it did not stop in time, or its stack could not be read).";
  }
  // The ptrace all-stop snapshot: threads that had not stopped by the instant's deadline (a
  // saturated host), each copied alone as soon as its stop landed.
  if (auto alone = f.count("threads_taken_alone"); alone && *alone > 0) {
    out += " " + count_of(*alone, "thread", "threads") + " did not stop within the snapshot's " +
           "instant and " + (*alone == 1 ? "was" : "were") + " taken alone just after it";
    const std::vector<std::string> names = f.texts("alone_thread_names");
    for (size_t i = 0; i < names.size() && i < kAloneNamed; ++i)
      out += (i == 0 ? ": " : "; ") + names[i];
    const uint64_t named = std::min<uint64_t>(names.size(), kAloneNamed);
    if (named > 0 && *alone > named) out += "; and " + with_thousands(*alone - named) + " more";
    out += ".";
  }
  auto method = f.text("method");
  auto copied = f.count("copied_without_stop");
  auto unchanged = f.count("unchanged");
  auto stopped = f.count("stopped");
  if (method || copied || stopped) {
    out += std::string(out.empty() ? "" : " ") + "Taken" + (method ? " by " + *method : "");
    std::string how;
    if (copied) how += with_thousands(*copied) + " copied without a stop";
    if (unchanged) {
      how += (how.empty() ? "" : ", ") + with_thousands(*unchanged) +
             " unchanged since their last copy";
    }
    if (stopped) how += (how.empty() ? "" : ", ") + with_thousands(*stopped) + " in a ptrace stop";
    out += how.empty() ? "." : ": " + how + ".";
  }
  if (auto fallback = f.text("fallback"))
    out += std::string(out.empty() ? "" : " ") + "BPF was not used: " + *fallback + ".";
  auto median = f.number("stall_median_ms");
  auto max = f.number("stall_max_ms");
  auto per_thread = f.number("stall_per_thread_median_us");
  if (median || max || per_thread) {
    std::string stall;
    if (median) stall += "median " + fixed(*median, 3) + " ms";
    if (max) stall += (stall.empty() ? "" : ", ") + std::string("max ") + fixed(*max, 3) + " ms";
    out += std::string(out.empty() ? "" : " ") +
           (processes ? "Each process's stall" : "The target's stall");
    if (!stall.empty()) out += " per sample: " + stall;
    if (per_thread) {
      out += std::string(stall.empty() ? "" : ";") + " per thread: median " +
             fixed(*per_thread, 0) + " \xc2\xb5s";
    }
    out += ".";
  }
  return out;
}

std::string sched_text(Figures& f) {
  std::string out;
  auto events = f.count("events");
  auto switches = f.count("sched_switch");
  auto window = f.number("window_s");
  auto lost = f.count("lost");
  if (events) {
    out += count_of(*events, "event", "events");
    if (switches) out += " (" + count_of(*switches, "context switch", "context switches") + ")";
    if (window) out += " in " + fixed(*window, 2) + " s";
    if (lost) {
      out += *lost == 0 ? ", none lost"
                        : ", " + with_thousands(*lost) + " lost (the figures undercount)";
    }
    out += ".";
  }
  auto threads = f.count("threads");
  auto selection = f.text("selection");
  if (threads || selection) {
    out += std::string(out.empty() ? "" : " ") +
           (threads ? count_of(*threads, "thread", "threads") : std::string("Threads"));
    if (selection) out += ", selected by " + *selection;
    out += ".";
  }
  if (auto estimated = f.count("estimated_switch_ins"); estimated && *estimated > 0) {
    out += " " + count_of(*estimated, "switch-in", "switch-ins") +
           " placed at a wakeup or migration (the kernel left their switch out of the stream).";
  }
  // What sched.intervals.tsv kept (hearth record --intervals).
  if (auto intervals = f.count("intervals")) {
    auto whole = f.number("intervals_whole_s");
    auto slot = f.number("intervals_slot_s");
    (void)f.number("intervals_whole_from_ns");  // the same, as a clock reading
    (void)f.count("slots");
    out += " " + count_of(*intervals, "state interval", "state intervals");
    if (whole && slot && *slot > 0) {
      out += " for the last " + short_number(*whole) + " s of the window, the time before in " +
             short_number(*slot) + " s slots";
    } else {
      out += " for the whole window";
    }
    out += ".";
  }
  // Slots from before the window that the tracer did not record (hearth watch's ring).
  if (auto untraced = f.count("untraced_slots"); untraced && *untraced > 0) {
    out += " " + count_of(*untraced, "slot", "slots") +
           " from before the window, read from /proc, not traced (coarse: see sched.slots.tsv).";
  }
  return out;
}

std::string mmv_text(Figures& f) {
  std::string out;
  auto files = f.count("files");
  auto interval = f.number("interval_s");
  auto snapshots = f.count("snapshots");
  auto errors = f.count("errors");
  if (files) {
    out += count_of(*files, "MMV file", "MMV files") + " read";
    if (interval) out += " every " + short_number(*interval) + " s";
    if (snapshots) out += ": " + count_of(*snapshots, "snapshot", "snapshots");
    if (errors) {
      out += *errors == 0 ? ", no errors"
                          : ", " + count_of(*errors, "error", "errors") + " (see mmv.tsv)";
    }
    out += ".";
  }
  return out;
}

// "3,184 samples of 720,000 allocator calls (100.0 MiB) of /usr/lib/…/libc.so.6 (malloc, …),
// one per 16,384 B on average: 0 lost, 412 stacks (0 truncated). Live at the end: …"
std::string alloc_text(Figures& f) {
  std::string out;
  auto samples = f.count("samples");
  auto calls = f.count("calls");
  if (!samples || !calls) return out;
  out += count_of(*samples, "sample", "samples") + " of " +
         count_of(*calls, "allocator call", "allocator calls");
  if (auto bytes = f.count("bytes")) out += " (" + with_thousands(*bytes) + " B)";
  if (auto allocator = f.text("allocator")) out += " of " + *allocator;
  if (auto entries = f.text("entries")) out += " (" + *entries + ")";
  if (auto mean = f.count("mean_bytes"))
    out += ", one per " + with_thousands(*mean) + " B on average";
  if (auto lost = f.count("lost"))
    out += ": " + with_thousands(*lost) + " lost to a full ring buffer";
  if (auto stacks = f.count("stacks")) {
    out += ", " + count_of(*stacks, "stack", "stacks");
    if (auto truncated = f.count("truncated_stacks"))
      out += " (" + with_thousands(*truncated) + " truncated)";
  }
  out += ".";
  auto est_bytes = f.count("estimated_bytes");
  auto est_calls = f.count("estimated_calls");
  if (est_bytes && est_calls) {
    out += " Estimated from the samples: " + with_thousands(*est_bytes) + " B in " +
           count_of(*est_calls, "call", "calls") + ".";
  }
  if (auto views = f.text("views")) out += " Views: " + *views + ".";
  if (auto live = f.count("live_blocks")) {
    out += " Live at the end: " + count_of(*live, "sampled block", "sampled blocks");
    std::string more;
    if (auto freed = f.count("freed")) more += with_thousands(*freed) + " freed in the window";
    if (auto dropped = f.count("dropped"); dropped && *dropped > 0) {
      more += (more.empty() ? "" : ", ") + with_thousands(*dropped) + " dropped (the live map full";
      if (auto max = f.count("live_max")) more += " at " + with_thousands(*max);
      more += ")";
    }
    out += (more.empty() ? "" : " (" + more + ")");
    if (auto bytes = f.count("live_estimated_bytes")) {
      out += ", standing for " + with_thousands(*bytes) + " B";
    }
    out += ".";
  }
  return out;
}

}  // namespace

std::string collector_text(std::string_view collector, const json& figures) {
  if (!figures.is_object()) return "";
  Figures f(figures);
  std::string out;
  if (collector == "stacks") out = stacks_text(f);
  if (collector == "sched") out = sched_text(f);
  if (collector == "mmv") out = mmv_text(f);
  if (collector == "alloc") out = alloc_text(f);
  std::string rest = f.rest();
  if (!rest.empty()) out += (out.empty() ? "" : " Also: ") + rest + (out.empty() ? "" : ".");
  return out;
}

}  // namespace hearth::report
