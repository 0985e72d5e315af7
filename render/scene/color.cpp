#include "render/scene/color.h"

#include <array>
#include <cstdint>

namespace hearth::scene {
namespace {

struct PaletteName {
  std::string_view name;
  Palette palette;
};
constexpr std::array<PaletteName, 15> kPalettes{{
    {"hot", Palette::kHot},
    {"mem", Palette::kMem},
    {"io", Palette::kIo},
    {"wakeup", Palette::kWakeup},
    {"chain", Palette::kChain},
    {"java", Palette::kJava},
    {"js", Palette::kJs},
    {"perl", Palette::kPerl},
    {"red", Palette::kRed},
    {"green", Palette::kGreen},
    {"blue", Palette::kBlue},
    {"aqua", Palette::kAqua},
    {"yellow", Palette::kYellow},
    {"purple", Palette::kPurple},
    {"orange", Palette::kOrange},
}};

uint64_t fnv1a(std::string_view s, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

double unit(uint64_t h) {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// flamegraph.pl's namehash: weights early characters, so similar names get similar values.
double prefix_hash(std::string_view name) {
  size_t tick = name.find('`');  // "module`func": keep the module's first character only
  std::string s;
  if (tick != std::string_view::npos && tick > 0) {
    s.push_back(name[0]);
    s.append(name.substr(tick + 1));
  } else {
    s.assign(name);
  }
  double vector = 0, weight = 1, max = 1;
  int mod = 10;
  for (unsigned char c : s) {
    int i = c % mod;
    vector += (static_cast<double>(i) / (mod++ - 1)) * weight;
    max += weight;
    weight *= 0.70;
    if (mod > 12) break;
  }
  return 1 - vector / max;
}

uint8_t u8(int v) {
  return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
}
int scaled(int base, int range, double v) {
  return base + static_cast<int>(range * v);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != s.npos;
}

// The multi-palettes pick a flat palette by what the name looks like (flamegraph.pl's rules).
Palette resolve(Palette p, std::string_view name) {
  switch (p) {
    case Palette::kJava:
      if (ends_with(name, "_[j]")) return Palette::kGreen;
      if (ends_with(name, "_[i]")) return Palette::kAqua;
      {
        std::string_view n = name;
        if (!n.empty() && n[0] == 'L') n.remove_prefix(1);
        for (std::string_view pkg :
             {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"}) {
          if (n.starts_with(pkg)) return Palette::kGreen;
        }
      }
      if (contains(name, ":::")) return Palette::kGreen;
      if (contains(name, "::")) return Palette::kYellow;
      if (ends_with(name, "_[k]")) return Palette::kOrange;
      return Palette::kRed;
    case Palette::kPerl:
      if (contains(name, "::")) return Palette::kYellow;
      if (contains(name, "Perl") || contains(name, ".pl")) return Palette::kGreen;
      if (ends_with(name, "_[k]")) return Palette::kOrange;
      return Palette::kRed;
    case Palette::kJs:
      if (ends_with(name, "_[j]")) return contains(name, "/") ? Palette::kGreen : Palette::kAqua;
      if (contains(name, "::")) return Palette::kYellow;
      if (auto slash = name.find('/'); slash != name.npos && name.find(".js", slash) != name.npos)
        return Palette::kGreen;
      if (contains(name, ":")) return Palette::kAqua;
      if (name == " ") return Palette::kGreen;
      if (contains(name, "_[k]")) return Palette::kOrange;
      return Palette::kRed;
    case Palette::kWakeup:
      return Palette::kAqua;
    case Palette::kChain:
      return contains(name, "_[w]") ? Palette::kAqua : Palette::kBlue;
    default:
      return p;
  }
}

}  // namespace

std::optional<Palette> parse_palette(std::string_view name) {
  for (const PaletteName& p : kPalettes) {
    if (p.name == name) return p.palette;
  }
  return std::nullopt;
}

std::string_view palette_names() {
  return "hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, "
         "orange";
}

Rgb frame_color(Palette palette, std::string_view name, bool by_prefix) {
  double v1, v2, v3;
  if (by_prefix) {
    v1 = prefix_hash(name);
    std::string reversed(name.rbegin(), name.rend());
    v2 = v3 = prefix_hash(reversed);
  } else {
    v1 = unit(fnv1a(name, 1));
    v2 = unit(fnv1a(name, 2));
    v3 = unit(fnv1a(name, 3));
  }
  switch (resolve(palette, name)) {
    case Palette::kHot:
      return {u8(scaled(205, 50, v3)), u8(scaled(0, 230, v1)), u8(scaled(0, 55, v2))};
    case Palette::kMem:
      return {0, u8(scaled(190, 50, v2)), u8(scaled(0, 210, v1))};
    case Palette::kIo: {
      uint8_t r = u8(scaled(80, 60, v1));
      return {r, r, u8(scaled(190, 55, v2))};
    }
    case Palette::kRed: {
      uint8_t x = u8(scaled(50, 80, v1));
      return {u8(scaled(200, 55, v1)), x, x};
    }
    case Palette::kGreen: {
      uint8_t x = u8(scaled(50, 60, v1));
      return {x, u8(scaled(200, 55, v1)), x};
    }
    case Palette::kBlue: {
      uint8_t x = u8(scaled(80, 60, v1));
      return {x, x, u8(scaled(205, 50, v1))};
    }
    case Palette::kYellow: {
      uint8_t x = u8(scaled(175, 55, v1));
      return {x, x, u8(scaled(50, 20, v1))};
    }
    case Palette::kPurple: {
      uint8_t x = u8(scaled(190, 65, v1));
      return {x, u8(scaled(80, 60, v1)), x};
    }
    case Palette::kAqua:
      return {u8(scaled(50, 60, v1)), u8(scaled(165, 55, v1)), u8(scaled(165, 55, v1))};
    case Palette::kOrange:
      return {u8(scaled(190, 65, v1)), u8(scaled(90, 65, v1)), 0};
    default:
      return {0, 0, 0};
  }
}

Rgb thread_color(std::string_view name) {
  double v = unit(fnv1a(name, 7));
  return {u8(scaled(110, 50, v)), u8(scaled(140, 40, v)), u8(scaled(200, 45, v))};
}

Rgb delta_color(double delta, double max_abs_delta) {
  int r = 255, g = 255, b = 255;
  if (max_abs_delta <= 0) return {255, 255, 255};
  if (delta > 0) {
    g = b = static_cast<int>(210 * (max_abs_delta - delta) / max_abs_delta);
  } else if (delta < 0) {
    r = g = static_cast<int>(210 * (max_abs_delta + delta) / max_abs_delta);
  }
  return {u8(r), u8(g), u8(b)};
}

bool background_colors(std::string_view name, Palette palette, Rgb* top, Rgb* bottom) {
  if (name.empty()) {
    switch (palette) {
      case Palette::kMem:
        name = "green";
        break;
      case Palette::kIo:
      case Palette::kWakeup:
      case Palette::kChain:
        name = "blue";
        break;
      case Palette::kRed:
      case Palette::kGreen:
      case Palette::kBlue:
      case Palette::kAqua:
      case Palette::kYellow:
      case Palette::kPurple:
      case Palette::kOrange:
        name = "grey";
        break;
      default:
        name = "yellow";
    }
  }
  if (name == "yellow") {
    *top = {0xee, 0xee, 0xee}, *bottom = {0xee, 0xee, 0xb0};
  } else if (name == "blue") {
    *top = {0xee, 0xee, 0xee}, *bottom = {0xe0, 0xe0, 0xff};
  } else if (name == "green") {
    *top = {0xee, 0xf2, 0xee}, *bottom = {0xe0, 0xff, 0xe0};
  } else if (name == "grey") {
    *top = {0xf8, 0xf8, 0xf8}, *bottom = {0xe8, 0xe8, 0xe8};
  } else if (name.size() == 7 && name[0] == '#') {
    unsigned v = 0;
    for (char c : name.substr(1)) {
      int d = (c >= '0' && c <= '9')   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    *top = *bottom = {u8(static_cast<int>(v >> 16)), u8(static_cast<int>((v >> 8) & 255)),
                      u8(static_cast<int>(v & 255))};
  } else {
    return false;
  }
  return true;
}

std::string to_hex(Rgb c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "#000000";
  s[1] = kDigits[c.r >> 4], s[2] = kDigits[c.r & 15];
  s[3] = kDigits[c.g >> 4], s[4] = kDigits[c.g & 15];
  s[5] = kDigits[c.b >> 4], s[6] = kDigits[c.b & 15];
  return s;
}

}  // namespace hearth::scene
