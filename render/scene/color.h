// Frame colours. The same name gets the same colour in every run and every graph: colours
// come from the name alone (no palette file, no randomness).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "render/scene/scene.h"

namespace hearth::scene {

// flamegraph.pl's palette names: hot mem io wakeup chain java js perl red green blue aqua
// yellow purple orange. Returns nullopt for an unknown name.
enum class Palette : uint8_t {
  kHot,
  kMem,
  kIo,
  kWakeup,
  kChain,
  kJava,
  kJs,
  kPerl,
  kRed,
  kGreen,
  kBlue,
  kAqua,
  kYellow,
  kPurple,
  kOrange,
};
std::optional<Palette> parse_palette(std::string_view name);
std::string_view palette_names();  // for help texts: "hot, mem, ..."

// NAME keeps its annotation suffix (_[k], _[j], ...): some palettes use it.
// by_prefix (flamegraph.pl --hash): similar names get similar colours.
Rgb frame_color(Palette palette, std::string_view name, bool by_prefix);
// Thread root frames: their own family of colours (slate blues), stable per name.
Rgb thread_color(std::string_view name);
// Differential frames (flamegraph.pl's scale): red grows, blue shrinks, white unchanged.
Rgb delta_color(double delta, double max_abs_delta);

// Background gradient: yellow, blue, green, grey, or "#rrggbb" (flat). Empty: the palette's
// default, as flamegraph.pl chooses it. Returns false for an unknown name.
bool background_colors(std::string_view name, Palette palette, Rgb* top, Rgb* bottom);

// "#rrggbb"
std::string to_hex(Rgb c);

}  // namespace hearth::scene
