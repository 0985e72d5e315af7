#include "render/svg/frame_data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/check.h"
#include "common/utf8.h"
#include "render/scene/color.h"
#include "render/scene/format.h"

namespace hearth::svg {
namespace {

using scene::format_px;

// S as a JSON string, with the characters the XML writer would change changed the same way
// (invalid UTF-8 and control characters other than tab become U+FFFD), so a title read from the
// data equals the one an element shows.
void append_json_string(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
      out->push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c == '<' || c == '>' || c == '&') {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      ++i;
    } else if (c == '\t') {
      out->append("\\t");
      ++i;
    } else if (c < 0x20) {
      out->append(utf8::kReplacement);
      ++i;
    } else if (c == 0x7f) {
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (size_t n = utf8::sequence_length(s, i); n == 0) {
      out->append(utf8::kReplacement);
      ++i;
    } else {
      out->append(s.data() + i, n);
      i += n;
    }
  }
  out->push_back('"');
}

// The width as written in the rect's `width` attribute, in tenths of a px.
long long written_tenths(const scene::Rect& r) {
  return std::llround((scene::round_px(r.x + r.w) - scene::round_px(r.x)) * 10);
}

// Strings by first appearance, each kept once: an open-addressing table of hashes and ids
// over views, so a lookup of a string already there reads one slot and compares one string
// (30,000 frames look up their name and suffix each).
class StringTable {
 public:
  // S's index. Its bytes must stay where they are while the table is used (views into the
  // layer's titles).
  int index(std::string_view s) {
    if ((strings_.size() + 1) * 2 > slots_.size()) grow();
    const uint64_t h = std::hash<std::string_view>{}(s);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id < 0) {
        slot = {h, static_cast<int>(strings_.size())};
        strings_.push_back(s);
        return slot.id;
      }
      if (slot.hash == h && strings_[static_cast<size_t>(slot.id)] == s) return slot.id;
    }
  }
  void append_json(std::string* out) const {
    out->push_back('[');
    for (size_t i = 0; i < strings_.size(); ++i) {
      if (i > 0) out->push_back(',');
      append_json_string(out, strings_[i]);
    }
    out->push_back(']');
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    int id = -1;  // -1: empty
  };
  void grow() {
    std::vector<Slot> old(std::max<size_t>(64, slots_.size() * 2));
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id < 0) continue;
      size_t i = slot.hash & mask;
      while (slots_[i].id >= 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }
  std::vector<Slot> slots_;
  std::vector<std::string_view> strings_;
};

// Fill colours by first appearance, written as "#rrggbb" strings.
class FillTable {
 public:
  int index(scene::Rgb c) {
    const uint32_t key = (uint32_t{c.r} << 16) | (uint32_t{c.g} << 8) | c.b;
    auto [it, added] = ids_.try_emplace(key, static_cast<int>(fills_.size()));
    if (added) fills_.push_back(c);
    return it->second;
  }
  void append_json(std::string* out) const {
    out->push_back('[');
    for (size_t i = 0; i < fills_.size(); ++i) {
      if (i > 0) out->push_back(',');
      append_json_string(out, scene::to_hex(fills_[i]));
    }
    out->push_back(']');
  }

 private:
  std::unordered_map<uint32_t, int> ids_;
  std::vector<scene::Rgb> fills_;
};

// Appends a ',' unless COL is empty, then V's digits.
void append_index(std::string* col, size_t v) {
  if (!col->empty()) col->push_back(',');
  char buf[24];
  col->append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace

double lazy_width(const scene::Layer& layer) {
  return layer.as_data && layer.rects.size() > layer.lazy_after ? layer.lazy_px : 0;
}

bool written_as_element(const scene::Rect& r, double lazy) {
  return lazy <= 0 || written_tenths(r) >= std::llround(lazy * 10);
}

void append_frame_data(std::string* out, const scene::Layer& layer) {
  HEARTH_CHECK(!layer.rects.empty());
  StringTable strings;
  FillTable fills;
  std::string x, y, w, name, suffix, fill, classes, strokes;
  auto column = [](std::string* col, std::string_view v) {
    if (!col->empty()) col->push_back(',');
    col->append(v);
  };
  // One height for all, as written (heights computed at different depths may differ in their
  // last bits).
  const std::string height = format_px(layer.rects[0].h);
  for (size_t i = 0; i < layer.rects.size(); ++i) {
    const scene::Rect& r = layer.rects[i];
    HEARTH_CHECK(r.attrs.empty() && !r.hover_only && format_px(r.h) == height);
    column(&x, format_px(r.x));
    column(&y, format_px(r.y));
    column(&w, format_px(scene::round_px(r.x + r.w) - scene::round_px(r.x)));
    size_t open = r.title.rfind(" (");
    if (open == std::string::npos) open = r.title.size();
    append_index(&name,
                 static_cast<size_t>(strings.index(std::string_view(r.title).substr(0, open))));
    append_index(&suffix,
                 static_cast<size_t>(strings.index(std::string_view(r.title).substr(open))));
    append_index(&fill, static_cast<size_t>(fills.index(r.fill)));
    if (!r.css_class.empty()) {
      column(&classes, std::to_string(i));
      classes.push_back(',');
      append_json_string(&classes, r.css_class);
    }
    if (r.stroke_width > 0) {
      column(&strokes, std::to_string(i));
      strokes.append(",\"" + scene::to_hex(r.stroke) + "\"," + format_px(r.stroke_width));
    }
  }
  out->append("{\"v\":1,\"lazy\":" + format_px(lazy_width(layer)) + ",\"h\":" + height +
              ",\n\"strings\":");
  strings.append_json(out);
  out->append(",\n\"fills\":");
  fills.append_json(out);
  for (auto [key, col] : {std::pair<const char*, const std::string*>{"x", &x},
                          {"y", &y},
                          {"w", &w},
                          {"name", &name},
                          {"suffix", &suffix},
                          {"fill", &fill},
                          {"class", &classes},
                          {"stroke", &strokes}}) {
    out->append(",\n\"");
    out->append(key);
    out->append("\":[");
    out->append(*col);
    out->push_back(']');
  }
  out->append("}");
}

}  // namespace hearth::svg
