#include "render/timeline/timeline_data.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "render/page/page_text.h"

namespace hearth::timeline {
namespace {

using page::append_base64;
using page::append_json_string;
using page::put_varint;

using sched_intervals::Interval;
using sched_intervals::Slot;

constexpr uint64_t kGoneCode = 127;

template <typename T>
void append_array(std::string* out, const char* key, const std::vector<T>& v, bool first = false) {
  if (!first) out->push_back(',');
  out->push_back('"');
  out->append(key);
  out->append("\":[");
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(std::to_string(v[i]));
  }
  out->push_back(']');
}

void append_strings(std::string* out, const char* key, const std::vector<std::string>& v,
                    bool first = false) {
  if (!first) out->push_back(',');
  out->push_back('"');
  out->append(key);
  out->append("\":[");
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out->push_back(',');
    append_json_string(out, v[i]);
  }
  out->push_back(']');
}

void append_key_string(std::string* out, const char* key, std::string_view value) {
  out->append(",\"");
  out->append(key);
  out->append("\":");
  append_json_string(out, value);
}

void append_key_number(std::string* out, const char* key, uint64_t value) {
  out->append(",\"");
  out->append(key);
  out->append("\":");
  out->append(std::to_string(value));
}

// State letters by index, in the order first seen.
class Letters {
 public:
  Letters() { std::fill(std::begin(ids_), std::end(ids_), -1); }
  uint64_t index(char c) {
    const auto b = static_cast<unsigned char>(c);
    if (ids_[b] < 0) {
      ids_[b] = static_cast<int>(letters_.size());
      letters_.push_back(c);
    }
    return static_cast<uint64_t>(ids_[b]);
  }
  const std::string& letters() const { return letters_; }

 private:
  int ids_[256];
  std::string letters_;
};

// The samples' part of the data.
void append_samples(std::string* out, const Model& m) {
  const timed_samples::Samples& s = *m.samples;
  std::unordered_map<std::string_view, uint32_t> frame_ids;
  std::vector<std::string> frames;
  std::vector<uint32_t> stack_n, stack_f;
  for (const std::string& st : s.stacks) {
    uint32_t n = 0;
    size_t start = 0;
    while (!st.empty() && start <= st.size()) {
      size_t semi = st.find(';', start);
      if (semi == std::string::npos) semi = st.size();
      const std::string_view f(st.data() + start, semi - start);
      auto [it, added] = frame_ids.try_emplace(f, static_cast<uint32_t>(frames.size()));
      if (added) frames.emplace_back(f);
      stack_f.push_back(it->second);
      ++n;
      start = semi + 1;
    }
    stack_n.push_back(n);
  }
  std::unordered_map<int64_t, int64_t> lane_of_tid;
  for (size_t i = 0; i < m.lanes.size(); ++i) lane_of_tid[m.lanes[i].tid] = static_cast<int64_t>(i);
  std::vector<int64_t> thread_lane;
  std::vector<std::string> roots;
  for (const timed_samples::Thread& t : s.threads) {
    auto it = lane_of_tid.find(t.tid);
    thread_lane.push_back(it == lane_of_tid.end() ? -1 : it->second);
    roots.push_back(t.root);
  }
  std::vector<int64_t> procs;
  std::unordered_map<int64_t, uint64_t> proc_ids;
  Letters states;
  std::string bytes;
  bytes.reserve(s.rounds.size() * 4 + s.changes.size() * 3);
  uint64_t previous = 0;
  for (size_t r = 0; r < s.rounds.size(); ++r) {
    const timed_samples::Round& round = s.rounds[r];
    auto [it, added] = proc_ids.try_emplace(round.pid, procs.size());
    if (added) procs.push_back(round.pid);
    const size_t first = round.first_change;
    const size_t last = r + 1 < s.rounds.size() ? s.rounds[r + 1].first_change : s.changes.size();
    put_varint(&bytes, round.time_ns - previous);
    previous = round.time_ns;
    put_varint(&bytes, it->second);
    put_varint(&bytes, last - first);
    int64_t thread = 0;
    for (size_t k = first; k < last; ++k) {
      const timed_samples::Change& c = s.changes[k];
      const int64_t delta = static_cast<int64_t>(c.thread) - thread;
      thread = c.thread;
      put_varint(&bytes, delta >= 0 ? static_cast<uint64_t>(delta) * 2
                                    : static_cast<uint64_t>(-delta) * 2 - 1);
      uint64_t code = kGoneCode, stack = 0;
      if (c.state != timed_samples::kGone) {
        code = std::min<uint64_t>(states.index(c.state), kGoneCode - 1);
        stack = c.stack;
      }
      put_varint(&bytes, stack * 128 + code);
    }
  }
  out->append(",\n");
  append_strings(out, "frames", frames, true);
  out->append(",\n\"stacks\":{");
  append_array(out, "n", stack_n, true);
  append_array(out, "f", stack_f);
  out->append("},\n\"sthreads\":{");
  append_array(out, "lane", thread_lane, true);
  append_strings(out, "root", roots);
  out->push_back('}');
  append_key_string(out, "sstates", states.letters());
  append_array(out, "sprocs", procs);
  append_key_number(out, "rounds", s.rounds.size());
  append_key_number(out, "changes", s.changes.size());
  out->append(",\n\"sd\":\"");
  append_base64(out, bytes);
  out->push_back('"');
}

}  // namespace

void append_page_data(std::string* out, const Model& m, const Names& names, const DataOptions& o) {
  const uint64_t t0 = m.start_ns;
  // The tid table: lanes first, then the tids `by` names that have no lane.
  std::vector<int64_t> who_tid;
  std::vector<std::string> who_name;
  std::unordered_map<int64_t, uint64_t> who_index;
  for (const Lane& l : m.lanes) {
    who_index.emplace(l.tid, who_tid.size());
    who_tid.push_back(l.tid);
    who_name.push_back(l.name);
  }
  auto who_of = [&](int64_t tid) {
    auto [it, added] = who_index.try_emplace(tid, who_tid.size());
    if (added) {
      who_tid.push_back(tid);
      auto n = names.threads.find(tid);
      who_name.push_back(tid == 0                   ? std::string("the idle task")
                         : n != names.threads.end() ? n->second
                                                    : std::string());
    }
    return it->second;
  };

  Letters states;
  std::string iv;
  std::vector<uint64_t> lane_n, lane_ns, lane_proc;
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    for (const Group& g : m.processes[p].groups) {
      for (size_t k = 0; k < g.lanes.size(); ++k) lane_proc.push_back(p);
    }
  }
  iv.reserve(m.intervals->intervals.size() * 6);
  for (const Lane& l : m.lanes) {
    lane_n.push_back(l.count);
    uint64_t prev_end = 0;
    int prev_cpu = -1;
    for (size_t i = l.first; i < l.first + l.count; ++i) {
      const Interval& r = m.intervals->intervals[i];
      const uint64_t start = r.start_ns - t0, end = r.end_ns - t0;
      uint64_t code = std::min<uint64_t>(states.index(r.state), 31);
      if (r.cpu != prev_cpu) code |= 32;
      if (r.by >= 0) code |= 64;
      if (start != prev_end) code |= 128;
      iv.push_back(static_cast<char>(code));
      if (start != prev_end) put_varint(&iv, start - prev_end);
      put_varint(&iv, end - start);
      if (r.cpu != prev_cpu) put_varint(&iv, static_cast<uint64_t>(r.cpu + 1));
      if (r.by >= 0) put_varint(&iv, who_of(r.by));
      prev_end = end;
      prev_cpu = r.cpu;
    }
  }
  std::string sl;
  for (const Lane& l : m.lanes) {
    lane_ns.push_back(l.slot_count);
    int64_t prev = -1;
    for (size_t i = l.slot_first; i < l.slot_first + l.slot_count; ++i) {
      const Slot& s = m.slots->slots[i];
      const int64_t k = static_cast<int64_t>((s.slot_start_ns - m.window_start_ns) / m.slot_ns);
      put_varint(&sl, static_cast<uint64_t>(k - prev - 1));
      prev = k;
      for (uint64_t v : {s.on_cpu_ns, s.runnable_ns, s.sleeping_ns, s.blocked_ns, s.stopped_ns,
                         s.other_ns, s.switches}) {
        put_varint(&sl, v);
      }
    }
  }

  out->append("{\"v\":1");
  append_key_string(out, "title", o.title);
  append_key_string(out, "source", o.source);
  append_key_number(out, "span", m.end_ns - t0);
  append_key_string(out, "start_mono", std::to_string(t0));
  out->append(",\"window\":[" + std::to_string(m.window_start_ns - t0) + "," +
              std::to_string(m.window_end_ns - t0) + "]");
  append_key_number(out, "whole_from", m.whole_from_ns - t0);
  // Signed: the samples' time 0 may come before the first thing drawn.
  out->append(",\"origin\":" +
              std::to_string(static_cast<int64_t>(m.origin_ns) - static_cast<int64_t>(t0)));
  append_key_number(out, "slot_ns", m.slot_ns);
  if (m.untraced_until_ns > m.window_start_ns) {  // slots from before the tracer
    out->append(",\"untraced\":[" + std::to_string(m.untraced_until_ns - t0) + "," +
                std::to_string(m.untraced_resolution_ns) + "]");
  }
  uint64_t real = 0;
  if (m.samples != nullptr && m.samples_aligned && m.samples->real_ns != 0) {
    real =
        static_cast<uint64_t>(static_cast<int64_t>(m.samples->real_ns) +
                              (static_cast<int64_t>(t0) - static_cast<int64_t>(m.samples_mono_ns)));
  }
  append_key_string(out, "real_ns", std::to_string(real));
  if (m.samples != nullptr) {
    out->append(",\"samples_t0\":" +
                std::to_string(static_cast<int64_t>(m.samples_mono_ns) - static_cast<int64_t>(t0)));
  } else {
    out->append(",\"samples_t0\":null");
  }
  out->append(m.samples_aligned ? ",\"aligned\":true" : ",\"aligned\":false");
  append_key_string(out, "heatmap", o.heatmap);
  out->append(o.group_pools ? ",\"group\":true" : ",\"group\":false");
  if (o.from_ns != 0 || o.to_ns != 0) {
    const uint64_t from = o.from_ns != 0 ? std::max(o.from_ns, t0) - t0 : 0;
    const uint64_t to = o.to_ns != 0 ? std::min(o.to_ns, m.end_ns) - t0 : m.end_ns - t0;
    out->append(",\"view\":[" + std::to_string(from) + "," + std::to_string(to) + "]");
  } else {
    out->append(",\"view\":null");
  }
  out->push_back(',');
  append_strings(out, "damage", o.damage, true);
  append_key_string(out, "states", states.letters());
  out->append(",\n\"who\":{");
  append_array(out, "tid", who_tid, true);
  append_strings(out, "name", who_name);
  out->append("},\n\"procs\":{");
  std::vector<int64_t> pids;
  std::vector<std::string> pnames, ptitles;
  for (const Process& p : m.processes) {
    pids.push_back(p.pid);
    pnames.push_back(p.name);
    ptitles.push_back(p.title);
  }
  append_array(out, "pid", pids, true);
  append_strings(out, "name", pnames);
  append_strings(out, "title", ptitles);
  out->append("},\n\"lanes\":{");
  append_array(out, "proc", lane_proc, true);
  append_array(out, "n", lane_n);
  append_array(out, "ns", lane_ns);
  out->append("},\n\"groups\":{");
  std::vector<std::string> gnames;
  std::vector<uint32_t> gfirst, gcount;
  for (const Process& p : m.processes) {
    for (const Group& g : p.groups) {
      gnames.push_back(g.name);
      gfirst.push_back(g.lanes.front());
      gcount.push_back(static_cast<uint32_t>(g.lanes.size()));
    }
  }
  append_strings(out, "name", gnames, true);
  append_array(out, "first", gfirst);
  append_array(out, "count", gcount);
  out->append("},\n\"iv\":\"");
  append_base64(out, iv);
  out->append("\",\n\"sl\":\"");
  append_base64(out, sl);
  out->push_back('"');
  if (m.samples != nullptr) append_samples(out, m);
  out->append("}");
}

}  // namespace hearth::timeline
