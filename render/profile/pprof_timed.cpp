#include "render/profile/pprof_timed.h"

#include <protozero/pbf_writer.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/atomic_file.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_labels.h"
#include "render/profile/speedscope_timed.h"

namespace hearth::profile {
namespace {

// profile.proto's field numbers (those this writer uses).
namespace timed_field {
constexpr uint32_t kSampleType = 1, kSample = 2, kLocation = 4, kFunction = 5, kStringTable = 6,
                   kTimeNanos = 9, kDurationNanos = 10, kDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
constexpr uint32_t kLabelKey = 1, kLabelStr = 2, kLabelNum = 3, kLabelNumUnit = 4;
constexpr uint32_t kLocationId = 1, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3;
}  // namespace timed_field

// pprof's string table (index 0 is ""), and one function and location per frame name.
class TimedPprofTables {
 public:
  TimedPprofTables() { string(""); }
  int64_t string(std::string_view s) {
    auto [it, added] = strings_.try_emplace(std::string(s), static_cast<int64_t>(order_.size()));
    if (added) order_.push_back(it->first);
    return it->second;
  }
  uint64_t location(std::string_view frame) {
    auto [it, added] = locations_.try_emplace(std::string(frame), frames_.size() + 1);
    if (added) frames_.push_back(it->first);
    return it->second;
  }
  void write(protozero::pbf_writer* pw) {
    for (size_t i = 0; i < frames_.size(); ++i) {
      protozero::pbf_writer loc(*pw, timed_field::kLocation);
      loc.add_uint64(timed_field::kLocationId, i + 1);
      protozero::pbf_writer line(loc, timed_field::kLocationLine);
      line.add_uint64(timed_field::kLineFunctionId, i + 1);
    }
    for (size_t i = 0; i < frames_.size(); ++i) {
      const int64_t name = string(frames_[i]);
      protozero::pbf_writer fn(*pw, timed_field::kFunction);
      fn.add_uint64(timed_field::kFunctionId, i + 1);
      fn.add_int64(timed_field::kFunctionName, name);
      fn.add_int64(timed_field::kFunctionSystemName, name);
    }
    for (std::string_view s : order_) {
      pw->add_string(timed_field::kStringTable, s.data(), s.size());
    }
  }

 private:
  std::unordered_map<std::string, int64_t> strings_;
  std::vector<std::string_view> order_;  // views of strings_'s keys (node-based: stable)
  std::unordered_map<std::string, uint64_t> locations_;
  std::vector<std::string_view> frames_;  // by location id - 1
};

void add_timed_value_type(protozero::pbf_writer* pw, int64_t type, int64_t unit) {
  protozero::pbf_writer vt(*pw, timed_field::kSampleType);
  vt.add_int64(timed_field::kValueTypeType, type);
  vt.add_int64(timed_field::kValueTypeUnit, unit);
}

// A label, string (STR != 0) or numeric (with its unit, so that a 0 is kept: pprof drops a
// numeric label whose number and unit are both unset).
struct TimedLabel {
  int64_t key = 0, str = 0, num = 0, unit = 0;
};

void add_timed_label(protozero::pbf_writer* sample, const TimedLabel& l) {
  protozero::pbf_writer label(*sample, timed_field::kSampleLabel);
  label.add_int64(timed_field::kLabelKey, l.key);
  if (l.str != 0) {
    label.add_int64(timed_field::kLabelStr, l.str);
    return;
  }
  label.add_int64(timed_field::kLabelNum, l.num);
  label.add_int64(timed_field::kLabelNumUnit, l.unit);
}

// ROOT's ';'-separated frames.
std::vector<std::string_view> timed_split(std::string_view frames) {
  std::vector<std::string_view> out;
  while (!frames.empty()) {
    size_t semi = frames.find(';');
    out.push_back(frames.substr(0, semi));
    frames = semi == std::string_view::npos ? std::string_view() : frames.substr(semi + 1);
  }
  return out;
}

}  // namespace

std::string timed_to_pprof(const timed_samples::Samples& s) {
  std::string out;
  protozero::pbf_writer pw(out);
  TimedPprofTables t;
  const int64_t samples_type = t.string("samples");
  add_timed_value_type(&pw, samples_type, t.string("count"));
  const int64_t nanoseconds = t.string("nanoseconds");
  add_timed_value_type(&pw, t.string("wall"), nanoseconds);
  const int64_t key_thread = t.string("thread"), key_thread_id = t.string("thread_id"),
                key_process = t.string("process"), key_pid = t.string("pid"),
                key_state = t.string("state"), key_time = t.string("time");
  const int64_t pid_unit = 0;

  // Per thread: its labels, and the root frames they could not stand for (leaf first).
  std::vector<std::vector<TimedLabel>> thread_labels(s.threads.size());
  std::vector<std::vector<uint64_t>> thread_roots(s.threads.size());
  std::vector<bool> thread_made(s.threads.size(), false);
  // Per stack: its locations, leaf first.
  std::vector<std::vector<uint64_t>> stack_locations(s.stacks.size());
  std::vector<bool> stack_made(s.stacks.size(), false);
  std::vector<int64_t> state_strings(256, 0);
  const std::vector<uint64_t> weight = timed_round_ns(s);
  std::vector<uint64_t> ids;
  uint64_t last_ns = 0;

  timed_samples::expand(s, [&](size_t round, std::span<const timed_samples::Sample> sampled) {
    const timed_samples::Round& r = s.rounds[round];
    last_ns = std::max(last_ns, r.time_ns + weight[round]);
    for (const timed_samples::Sample& one : sampled) {
      if (!thread_made[one.thread]) {
        std::vector<std::string_view> roots = timed_split(s.threads[one.thread].root);
        RootLabels rl;
        const size_t first = take_root_labels(roots, &rl);
        auto& labels = thread_labels[one.thread];
        if (!rl.process.empty()) labels.push_back({key_process, t.string(rl.process), 0, 0});
        if (rl.pid >= 0) labels.push_back({key_pid, 0, rl.pid, pid_unit});
        if (!rl.thread.empty()) labels.push_back({key_thread, t.string(rl.thread), 0, 0});
        if (rl.tid >= 0) labels.push_back({key_thread_id, 0, rl.tid, pid_unit});
        for (size_t i = roots.size(); i-- > first;) {
          thread_roots[one.thread].push_back(t.location(roots[i]));
        }
        thread_made[one.thread] = true;
      }
      if (!stack_made[one.stack]) {
        std::vector<std::string_view> frames = timed_split(s.stacks[one.stack]);
        for (size_t i = frames.size(); i-- > 0;) {
          stack_locations[one.stack].push_back(t.location(frames[i]));
        }
        stack_made[one.stack] = true;
      }
      ids.assign(stack_locations[one.stack].begin(), stack_locations[one.stack].end());
      ids.insert(ids.end(), thread_roots[one.thread].begin(), thread_roots[one.thread].end());
      protozero::pbf_writer sample(pw, timed_field::kSample);
      sample.add_packed_uint64(timed_field::kSampleLocationId, ids.begin(), ids.end());
      const int64_t values[2] = {1, static_cast<int64_t>(weight[round])};
      sample.add_packed_int64(timed_field::kSampleValue, values, values + 2);
      for (const TimedLabel& l : thread_labels[one.thread]) add_timed_label(&sample, l);
      int64_t& state = state_strings[static_cast<unsigned char>(one.state)];
      if (state == 0) state = t.string(std::string_view(&one.state, 1));
      add_timed_label(&sample, {key_state, state, 0, 0});
      add_timed_label(&sample, {key_time, 0, static_cast<int64_t>(r.time_ns), nanoseconds});
    }
  });
  t.write(&pw);
  if (s.real_ns > 0) pw.add_int64(timed_field::kTimeNanos, static_cast<int64_t>(s.real_ns));
  pw.add_int64(timed_field::kDurationNanos, static_cast<int64_t>(last_ns));
  pw.add_int64(timed_field::kDefaultSampleType, samples_type);
  return out;
}

Result<void> write_timed_pprof(const timed_samples::Samples& samples, const std::string& path) {
  ASSIGN_OR_RETURN(std::string packed, gzip(timed_to_pprof(samples)));
  return write_file_atomically(path, packed);
}

}  // namespace hearth::profile
