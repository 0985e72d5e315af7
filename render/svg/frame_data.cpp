#include "render/svg/frame_data.h"

#include <cmath>
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

class StringTable {
 public:
  int index(std::string_view s) {
    // Looked up by view: a string is made only for a new entry, not for every frame.
    if (auto it = ids_.find(s); it != ids_.end()) return it->second;
    auto it = ids_.emplace(std::string(s), static_cast<int>(strings_.size())).first;
    strings_.push_back(it->first);
    return it->second;
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
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, int, ViewHash, std::equal_to<>> ids_;
  std::vector<std::string_view> strings_;  // views into ids_' keys, stable
};

}  // namespace

double lazy_width(const scene::Layer& layer) {
  return layer.as_data && layer.rects.size() > layer.lazy_after ? layer.lazy_px : 0;
}

bool written_as_element(const scene::Rect& r, double lazy) {
  return lazy <= 0 || written_tenths(r) >= std::llround(lazy * 10);
}

void append_frame_data(std::string* out, const scene::Layer& layer) {
  HEARTH_CHECK(!layer.rects.empty());
  StringTable strings, fills;
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
    column(&name, std::to_string(strings.index(std::string_view(r.title).substr(0, open))));
    column(&suffix, std::to_string(strings.index(std::string_view(r.title).substr(open))));
    column(&fill, std::to_string(fills.index(scene::to_hex(r.fill))));
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
