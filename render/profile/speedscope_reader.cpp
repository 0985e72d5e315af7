#include "render/profile/speedscope_reader.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hearth::profile {
namespace {

using nlohmann::json;

// A speedscope frame's name as one folded frame.
std::string folded_frame_name(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// A frame index: an integer in [0, FRAMES).
bool frame_index(const json& v, size_t frames, size_t* index) {
  if (v.is_number_unsigned()) {
    uint64_t i = v.get<uint64_t>();
    if (i >= frames) return false;
    *index = static_cast<size_t>(i);
    return true;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d >= 0 && d < static_cast<double>(frames)) || d != std::floor(d)) return false;
    *index = static_cast<size_t>(d);
    return true;
  }
  return false;  // negative, or not a number
}

std::string describe(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 40) + "…" : s;
}

// A weight or a time as a count: whole when an integer, else fractional.
bool to_count(const json& v, Count* c) {
  if (v.is_number_unsigned()) {
    *c = whole_count(v.get<uint64_t>());
    return true;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d >= 0) || !std::isfinite(d)) return false;
    *c = fractional_count(d);
    return true;
  }
  return false;  // negative integers, non-numbers
}

// One profile's stacks, checked: (frame indices, root first; count).
struct Stack {
  std::vector<uint32_t> frames;
  Count count;
};

Result<void> read_sampled(const json& p, size_t frames, const std::string& where,
                          std::vector<Stack>* out) {
  auto s = p.find("samples");
  if (s == p.end() || !s->is_array()) return fail(where + ": no \"samples\" array");
  auto w = p.find("weights");
  const bool weighted = w != p.end() && !w->is_null();
  if (weighted && (!w->is_array() || w->size() != s->size())) {
    return fail(where + ": \"weights\" is not an array of one weight per sample");
  }
  for (size_t i = 0; i < s->size(); ++i) {
    const json& sample = (*s)[i];
    if (!sample.is_array()) return fail(where + " sample " + std::to_string(i) + ": not an array");
    Stack st;
    st.frames.reserve(sample.size());
    for (const json& f : sample) {
      size_t index = 0;
      if (!frame_index(f, frames, &index)) {
        return fail(where + " sample " + std::to_string(i) + ": frame index " + describe(f) +
                    " is not one of shared.frames' " + std::to_string(frames));
      }
      st.frames.push_back(static_cast<uint32_t>(index));
    }
    st.count = whole_count(1);
    if (weighted && !to_count((*w)[i], &st.count)) {
      return fail(where + " sample " + std::to_string(i) + ": weight " + describe((*w)[i]) +
                  " is not a number at or above 0");
    }
    out->push_back(std::move(st));
  }
  return {};
}

Result<void> read_evented(const json& p, size_t frames, const std::string& where,
                          std::vector<Stack>* out) {
  auto e = p.find("events");
  if (e == p.end() || !e->is_array()) return fail(where + ": no \"events\" array");
  std::vector<uint32_t> open;
  bool whole = true;
  for (const json& ev : *e)
    whole = whole && ev.is_object() && ev.contains("at") && ev["at"].is_number_unsigned();
  double last = 0;
  uint64_t last_whole = 0;
  for (size_t i = 0; i < e->size(); ++i) {
    const json& ev = (*e)[i];
    const std::string at_event = where + " event " + std::to_string(i);
    if (!ev.is_object()) return fail(at_event + ": not an object");
    auto type = ev.find("type"), frame = ev.find("frame"), at = ev.find("at");
    if (type == ev.end() || !type->is_string() || (*type != "O" && *type != "C")) {
      return fail(at_event + ": \"type\" is not \"O\" or \"C\"");
    }
    if (at == ev.end() || !at->is_number() || !(at->get<double>() >= last) ||
        !std::isfinite(at->get<double>())) {
      return fail(at_event + ": \"at\" is not a time at or after the previous event's");
    }
    size_t index = 0;
    if (frame == ev.end() || !frame_index(*frame, frames, &index)) {
      return fail(at_event + ": frame index " + (frame == ev.end() ? "(none)" : describe(*frame)) +
                  " is not one of shared.frames' " + std::to_string(frames));
    }
    // The time since the previous event goes to the stack open until now.
    Count c = whole ? whole_count(at->get<uint64_t>() - last_whole)
                    : fractional_count(at->get<double>() - last);
    if (!open.empty() && c.value > 0) out->push_back({open, c});
    last = at->get<double>();
    if (whole) last_whole = at->get<uint64_t>();
    if (*type == "O") {
      open.push_back(static_cast<uint32_t>(index));
    } else {
      if (open.empty() || open.back() != index) {
        return fail(at_event + ": closes frame " + std::to_string(index) +
                    (open.empty() ? std::string(", none is open")
                                  : ", not the open one (" + std::to_string(open.back()) + ")"));
      }
      open.pop_back();
    }
  }
  if (!open.empty()) return fail(where + ": " + std::to_string(open.size()) + " frames left open");
  return {};
}

}  // namespace

bool looks_like_speedscope(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && head[i] == '{';
}

Result<SpeedscopeStats> read_speedscope(
    std::string_view text,
    const std::function<void(std::span<const std::string_view>, Count)>& each) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("not a speedscope file: not valid JSON");
  if (!doc.is_object()) return fail("not a speedscope file: not a JSON object");
  auto shared = doc.find("shared");
  auto profiles = doc.find("profiles");
  if (shared == doc.end() || !shared->is_object() || !shared->contains("frames") ||
      !(*shared)["frames"].is_array() || profiles == doc.end() || !profiles->is_array()) {
    return fail("not a speedscope file: no shared.frames and profiles arrays");
  }
  std::vector<std::string> names;
  for (const json& f : (*shared)["frames"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) {
      return fail("not a speedscope file: frame " + std::to_string(names.size()) +
                  " has no \"name\" string");
    }
    names.push_back(folded_frame_name(f["name"].get_ref<const std::string&>()));
  }
  auto exporter = doc.find("exporter");
  const bool ours = exporter != doc.end() && exporter->is_string() &&
                    exporter->get_ref<const std::string&>().starts_with("hearth");

  // Every profile checked before any stack is given.
  struct Checked {
    std::string root;  // "" for none
    std::vector<Stack> stacks;
  };
  std::vector<Checked> checked;
  for (size_t i = 0; i < profiles->size(); ++i) {
    const json& p = (*profiles)[i];
    const std::string where = "profile " + std::to_string(i);
    if (!p.is_object()) return fail(where + ": not an object");
    auto type = p.find("type");
    Checked c;
    if (auto name = p.find("name"); name != p.end() && name->is_string()) {
      std::string n = folded_frame_name(name->get_ref<const std::string&>());
      if (ours || (n.size() >= 2 && n.front() == '[' && n.back() == ']')) {
        c.root = n;
      } else if (profiles->size() > 1) {
        c.root = "[" + n + "]";
      }
    }
    if (type != p.end() && *type == "sampled") {
      RETURN_IF_ERROR(read_sampled(p, names.size(), where, &c.stacks));
    } else if (type != p.end() && *type == "evented") {
      RETURN_IF_ERROR(read_evented(p, names.size(), where, &c.stacks));
    } else {
      return fail(where + ": \"type\" is not \"sampled\" or \"evented\"");
    }
    checked.push_back(std::move(c));
  }
  SpeedscopeStats stats;
  std::vector<std::string_view> frames;
  for (const Checked& c : checked) {
    ++stats.profiles;
    for (const Stack& s : c.stacks) {
      frames.clear();
      if (!c.root.empty()) frames.push_back(c.root);
      for (uint32_t f : s.frames) frames.push_back(names[f]);
      if (frames.empty()) continue;  // a sample of no frame: nothing to count it on
      ++stats.stacks;
      each(frames, s.count);
    }
  }
  return stats;
}

}  // namespace hearth::profile
