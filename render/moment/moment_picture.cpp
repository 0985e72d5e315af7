#include "render/moment/moment_picture.h"

#include <cmath>

#include "render/charts/chart_style.h"
#include "render/moment/moment_text.h"

namespace hearth::moment {
namespace {

constexpr double kMargin = 12;     // px
constexpr double kLine = 15;       // px: a text line
constexpr double kHeadH = 20;      // px: a group's band
constexpr double kFont = 12;       // px
constexpr double kSmall = 11;      // px
constexpr double kGlyph = 0.62;    // average glyph width / font size
constexpr scene::Rgb kInk{0x22, 0x22, 0x22};
constexpr scene::Rgb kMuted{0x55, 0x55, 0x55};

scene::Text moment_line(double x, double y, const std::string& s, double size, double room,
                        scene::Rgb color, bool bold = false) {
  scene::Text t;
  t.x = x;
  t.y = y;
  const auto fits = static_cast<size_t>(std::max(4.0, room / (size * kGlyph)));
  t.text = charts::elide(s, fits);
  t.size = size;
  t.color = color;
  t.bold = bold;
  if (size != kFont) t.css_class = "f" + std::to_string(static_cast<int>(size));
  return t;
}

}  // namespace

scene::Rgb rank_color(Rank rank) {
  switch (rank) {
    case Rank::kBlocked: return {0xc0, 0x39, 0x2b};
    case Rank::kLock: return {0xd3, 0x54, 0x00};
    case Rank::kIo: return {0x8e, 0x44, 0xad};
    case Rank::kRunning: return {0x27, 0xae, 0x60};
    case Rank::kSleeping:
    case Rank::kOther: break;
  }
  return {0x88, 0x88, 0x88};
}

scene::Scene layout_moment(const timed_samples::Samples& s, const Moment& m,
                           const PictureOptions& o) {
  scene::Scene sc;
  sc.kind = "moment";
  sc.width = o.width;
  sc.font_size = kFont;
  sc.background_top = sc.background_bottom = {0xff, 0xff, 0xff};
  const double room = o.width - 2 * kMargin;
  double y = kMargin + 16;
  sc.texts.push_back(moment_line(kMargin, y, title_text(s, m), 17, room, kInk, true));
  y += 20;
  sc.texts.push_back(moment_line(kMargin, y, info_text(s, m) +
                                                 " (waits first: D, lock waits, I/O waits, then R,"
                                                 " then sleeps; durations since the first sample "
                                                 "that saw the thread so)",
                                 kSmall, room, kMuted));
  y += 10;
  scene::Layer bands;
  bands.id = "groups";
  for (const Group& g : m.groups) {
    y += 10;
    scene::Rect band;
    band.x = kMargin;
    band.y = y;
    band.w = room;
    band.h = kHeadH;
    const scene::Rgb c = rank_color(g.rank);
    // A pale band with a strong edge, as the page's group boxes.
    band.fill = {static_cast<uint8_t>(255 - (255 - c.r) / 5), static_cast<uint8_t>(255 - (255 - c.g) / 5),
                 static_cast<uint8_t>(255 - (255 - c.b) / 5)};
    band.title = head_text(s, g);
    bands.rects.push_back(band);
    // The head line as the band's label (texts are painted before layers).
    bands.rects.back().label =
        charts::elide(head_text(s, g), static_cast<size_t>((room - 14) / (kFont * kGlyph)));
    bands.rects.back().label_x = kMargin + 10;
    bands.rects.back().label_y = y + 14;
    scene::Rect edge = band;
    edge.w = 4;
    edge.fill = c;
    edge.title.clear();
    bands.rects.push_back(edge);
    y += kHeadH + 2;
    const std::vector<std::string_view> frames = stack_frames(s.stacks[g.stack]);
    if (frames.empty()) {
      y += kLine;
      sc.texts.push_back(moment_line(kMargin + 24, y - 4, "(no frames)", kSmall, room - 24, kMuted));
    }
    for (size_t i = frames.size(); i-- > 0;) {
      y += kLine;
      sc.texts.push_back(moment_line(kMargin + 24, y - 4, std::string(frames[i]), kSmall, room - 24, kInk));
    }
    y += 4;
    for (size_t k = 0; k < g.threads.size(); ++k) {
      y += kLine;
      if (k == kMaxThreadLines && g.threads.size() > kMaxThreadLines + 1) {
        sc.texts.push_back(moment_line(kMargin + 10, y - 4,
                                       "\u2026 and " + std::to_string(g.threads.size() - k) +
                                           " more threads (the text output, -o moment.txt, lists them all)",
                                       kSmall, room - 10, kMuted));
        break;
      }
      sc.texts.push_back(moment_line(kMargin + 10, y - 4, thread_text(s, g, g.threads[k]), kSmall,
                                     room - 10, kMuted));
    }
  }
  sc.layers.push_back(std::move(bands));
  sc.height = std::ceil(y + kMargin + 4);
  return sc;
}

}  // namespace hearth::moment
