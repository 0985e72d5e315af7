#include "render/time/heat_data.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "render/page/page_text.h"
#include "render/profile/filters.h"
#include "render/scene/color.h"

namespace hearth::heat {
namespace {

using page::append_base64;
using page::put_varint;
using timed_samples::Samples;

constexpr uint64_t kGoneCode = 127;

// flamegraph.pl sorts whole lines, so siblings compare as NAME followed by ';' (as
// render/flame/layout.cpp orders them).
bool sibling_order(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0;
  if (a.size() == b.size()) return false;
  if (a.size() < b.size())
    return static_cast<unsigned char>(';') < static_cast<unsigned char>(b[n]);
  return static_cast<unsigned char>(a[n]) < static_cast<unsigned char>(';');
}

void split_frames(std::string_view s, std::vector<std::string_view>* out) {
  out->clear();
  if (s.empty()) return;
  size_t start = 0;
  while (true) {
    size_t semi = s.find(';', start);
    if (semi == std::string_view::npos) {
      out->push_back(s.substr(start));
      return;
    }
    out->push_back(s.substr(start, semi - start));
    start = semi + 1;
  }
}

template <typename T>
void append_array(std::string* out, const char* key, const std::vector<T>& v) {
  out->append(",\"");
  out->append(key);
  out->append("\":[");
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(std::to_string(v[i]));
  }
  out->push_back(']');
}

void append_key_string(std::string* out, const char* key, std::string_view value) {
  out->append(",\"");
  out->append(key);
  out->append("\":");
  append_json_string(out, value);
}

}  // namespace

void append_page_data(std::string* out, const Samples& s, const Layout& layout,
                      const DataOptions& o) {
  // Frame names: every distinct one, in sibling order.
  std::vector<std::string_view> parts;
  std::unordered_map<std::string_view, uint32_t> frame_ids;
  auto collect = [&](std::string_view frames) {
    split_frames(frames, &parts);
    for (std::string_view p : parts) frame_ids.emplace(p, 0);
  };
  for (const std::string& st : s.stacks) collect(st);
  for (const timed_samples::Thread& t : s.threads) collect(t.root);
  std::vector<std::string_view> frames;
  frames.reserve(frame_ids.size());
  for (const auto& [name, id] : frame_ids) frames.push_back(name);
  std::sort(frames.begin(), frames.end(), sibling_order);
  for (size_t i = 0; i < frames.size(); ++i) frame_ids[frames[i]] = static_cast<uint32_t>(i);

  std::vector<std::string> fills;
  std::unordered_map<std::string, int> fill_ids;
  auto fill_of = [&](scene::Rgb c) {
    auto [it, added] = fill_ids.try_emplace(scene::to_hex(c), static_cast<int>(fills.size()));
    if (added) fills.push_back(it->first);
    return it->second;
  };
  std::vector<int> ffill(frames.size()), tfill(frames.size(), -1);
  for (size_t i = 0; i < frames.size(); ++i) {
    ffill[i] = fill_of(scene::frame_color(scene::Palette::kHot, frames[i], false));
    if (profile::is_thread_root(frames[i])) {
      tfill[i] = fill_of(scene::thread_color(profile::thread_name(frames[i])));
    }
  }

  const int all_fill = fill_of(scene::frame_color(scene::Palette::kHot, "all", false));

  auto encode = [&](const std::string& joined, std::vector<uint32_t>* n, std::vector<uint32_t>* f) {
    split_frames(joined, &parts);
    n->push_back(static_cast<uint32_t>(parts.size()));
    for (std::string_view p : parts) f->push_back(frame_ids.at(p));
  };
  std::vector<uint32_t> stack_n, stack_f, root_n, root_f;
  for (const std::string& st : s.stacks) encode(st, &stack_n, &stack_f);
  std::vector<int64_t> tids, tpids;
  for (const timed_samples::Thread& t : s.threads) {
    encode(t.root, &root_n, &root_f);
    tids.push_back(t.tid);
    tpids.push_back(t.pid);
  }

  // Processes and states by index.
  std::vector<int64_t> procs;
  std::unordered_map<int64_t, uint32_t> proc_ids;
  std::string states;
  uint8_t state_ids[256];
  std::fill(std::begin(state_ids), std::end(state_ids), 0xff);
  std::string bytes;
  bytes.reserve(s.rounds.size() * 4 + s.changes.size() * 4);
  uint64_t previous = 0;
  for (size_t r = 0; r < s.rounds.size(); ++r) {
    const timed_samples::Round& round = s.rounds[r];
    auto [it, added] = proc_ids.try_emplace(round.pid, static_cast<uint32_t>(procs.size()));
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
        const auto b = static_cast<unsigned char>(c.state);
        if (state_ids[b] == 0xff) {
          state_ids[b] = static_cast<uint8_t>(states.size());
          states.push_back(c.state);
        }
        code = state_ids[b];
        stack = c.stack;
      }
      put_varint(&bytes, stack * 128 + code);
    }
  }

  out->append("{\"v\":1");
  append_key_string(out, "title", o.title);
  append_key_string(out, "name", s.name);
  out->append(",\"pid\":" + std::to_string(s.pid));
  append_key_string(out, "source", o.source);
  append_key_string(out, "real_ns", std::to_string(s.real_ns));
  out->append(",\"row_ns\":" + std::to_string(layout.row_ns));
  out->append(",\"rows\":" + std::to_string(layout.rows));
  out->append(",\"columns\":" + std::to_string(layout.columns));
  append_key_string(out, "chosen", layout.chosen);
  append_key_string(out, "damage", s.damage);
  out->append(",\n\"frames\":[");
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i > 0) out->push_back(',');
    append_json_string(out, frames[i]);
  }
  out->append("],\n\"fills\":[");
  for (size_t i = 0; i < fills.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append("\"" + fills[i] + "\"");
  }
  out->push_back(']');
  out->append(",\"allfill\":" + std::to_string(all_fill));
  append_array(out, "ffill", ffill);
  append_array(out, "tfill", tfill);
  // "_" opens each object, so every real key is written the same way (after a comma).
  out->append(",\n\"stacks\":{\"_\":0");
  append_array(out, "n", stack_n);
  append_array(out, "f", stack_f);
  out->append("},\n\"threads\":{\"_\":0");
  append_array(out, "tid", tids);
  append_array(out, "pid", tpids);
  append_array(out, "n", root_n);
  append_array(out, "f", root_f);
  out->push_back('}');
  append_array(out, "procs", procs);
  append_key_string(out, "states", states);
  out->append(",\"rounds\":" + std::to_string(s.rounds.size()));
  out->append(",\"changes\":" + std::to_string(s.changes.size()));
  out->append(",\n\"data\":\"");
  append_base64(out, bytes);
  out->append("\"}");
}

}  // namespace hearth::heat
