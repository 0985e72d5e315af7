#include "render/time/heat_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hearth::heat {
namespace {

constexpr double kLeft = 70;    // px: row labels
constexpr double kRight = 20;   // px
constexpr double kTop = 56;     // px: title, subtitle
constexpr double kAxis = 22;    // px: column labels under the grid
constexpr double kLegend = 40;  // px: colour ramp and details line
constexpr double kGridHeight = 400;  // px, about

std::string with_thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

uint32_t cell_count(const Grid& g, size_t cell, std::optional<StateClass> state) {
  return state ? g.counts[static_cast<size_t>(*state)][cell] : g.total(cell);
}

// The offset of row ROW in its column, for labels: "+340 ms".
std::string offset_text(const Layout& l, uint32_t row) {
  return "+" + duration_text(row * l.row_ns);
}

// A column's start time since time 0, for labels: "12 s", "3 min".
std::string column_text(const Layout& l, uint32_t column) {
  return duration_text(column * l.column_ns());
}

scene::Text text_at(double x, double y, std::string s, double size, scene::Anchor a) {
  scene::Text t;
  t.x = x, t.y = y, t.text = std::move(s), t.size = size, t.anchor = a;
  return t;
}

}  // namespace

scene::Rgb heat_color(double f) {
  struct Stop {
    double at;
    double r, g, b;
  };
  static constexpr Stop kStops[] = {{0, 255, 240, 180}, {0.5, 245, 140, 30}, {1, 140, 0, 0}};
  f = std::clamp(f, 0.0, 1.0);
  const Stop& a = f <= 0.5 ? kStops[0] : kStops[1];
  const Stop& b = f <= 0.5 ? kStops[1] : kStops[2];
  const double t = (f - a.at) / (b.at - a.at);
  auto mix = [t](double x, double y) { return static_cast<uint8_t>(std::lround(x + (y - x) * t)); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

const char* state_class_text(std::optional<StateClass> state) {
  if (!state) return "all samples";
  switch (*state) {
    case StateClass::kRunning:
      return "R (on CPU or runnable)";
    case StateClass::kBlocked:
      return "D (blocked, uninterruptible)";
    case StateClass::kSleeping:
      return "S (sleeping)";
    case StateClass::kOther:
      return "other states";
  }
  return "";
}

scene::Scene layout_heatmap(const Grid& g, const PictureOptions& o) {
  const Layout& l = g.layout;
  const double avail = std::max(100.0, o.width - kLeft - kRight);
  const double cw = std::clamp(std::floor(avail / std::max<uint32_t>(1, l.columns)), 1.0, 48.0);
  const double ch = std::clamp(std::floor(kGridHeight / std::max<uint32_t>(1, l.rows)), 2.0, 24.0);
  const double grid_w = cw * l.columns, grid_h = ch * l.rows;
  const double fs = 12;

  uint32_t max_cell = 0;
  const size_t cells = static_cast<size_t>(l.columns) * l.rows;
  for (size_t i = 0; i < cells; ++i) max_cell = std::max(max_cell, cell_count(g, i, o.state));
  std::string sub = o.subtitle;
  if (sub.empty()) {
    sub = "columns of " + duration_text(l.column_ns()) + ", rows of " + duration_text(l.row_ns) +
          "; colour: " + state_class_text(o.state) + ", up to " + with_thousands(max_cell) +
          " in a cell; " + with_thousands(g.samples) + " thread-samples of " +
          std::to_string(g.threads) + (g.threads == 1 ? " thread" : " threads");
  }

  scene::Scene s;
  s.kind = "heatgrid";
  // As wide as the grid needs, and as the subtitle (an average glyph is 0.62 of the font size),
  // at least 600 px; wider only when the columns need more than 1 px each.
  const double sub_w = static_cast<double>(sub.size()) * fs * 0.62 + 20;
  s.width = std::max({600.0, kLeft + grid_w + kRight, std::ceil(sub_w)});
  s.height = kTop + grid_h + kAxis + kLegend;
  s.background_top = s.background_bottom = {0xff, 0xff, 0xff};

  scene::Text title = text_at(s.width / 2, 22, o.title, fs + 5, scene::Anchor::kMiddle);
  title.id = "title";
  s.texts.push_back(title);
  s.texts.push_back(text_at(s.width / 2, 42, sub, fs, scene::Anchor::kMiddle));

  // Row labels: about every 40 px, on rows whose offset is a round number of steps.
  const uint32_t row_step = std::max<uint32_t>(1, static_cast<uint32_t>(std::ceil(40 / ch)));
  for (uint32_t r = 0; r < l.rows; r += row_step) {
    s.texts.push_back(text_at(kLeft - 6, kTop + r * ch + std::min(ch, 12.0) - 1,
                              offset_text(l, r), fs - 2, scene::Anchor::kEnd));
  }
  // Column labels: about every 80 px, on a step of 1, 2, 5, 10, 15, 30, 60, ... columns.
  uint32_t col_step = 1;
  for (uint32_t step : {1u, 2u, 5u, 10u, 15u, 30u, 60u, 120u, 300u, 600u, 1800u, 3600u}) {
    col_step = step;
    if (step * cw >= 80) break;
  }
  for (uint32_t c = 0; c < l.columns; c += col_step) {
    s.texts.push_back(text_at(kLeft + c * cw, kTop + grid_h + 14, column_text(l, c), fs - 2,
                              scene::Anchor::kStart));
  }

  scene::Layer cells_layer;
  cells_layer.id = "cells";
  for (uint32_t c = 0; c < l.columns; ++c) {
    for (uint32_t r = 0; r < l.rows; ++r) {
      const size_t i = static_cast<size_t>(c) * l.rows + r;
      const uint32_t n = cell_count(g, i, o.state);
      if (n == 0) continue;
      scene::Rect rect;
      rect.x = kLeft + c * cw;
      rect.y = kTop + r * ch;
      rect.w = cw;
      rect.h = ch;
      rect.fill = heat_color(static_cast<double>(n) / max_cell);
      const uint64_t at = c * l.column_ns() + r * l.row_ns;
      rect.title = duration_text(at) + " (" + column_text(l, c) + " " + offset_text(l, r) +
                   "): " + with_thousands(n) + " samples (R " +
                   with_thousands(g.counts[0][i]) + ", D " + with_thousands(g.counts[1][i]) +
                   ", S " + with_thousands(g.counts[2][i]) + ", other " +
                   with_thousands(g.counts[3][i]) + ")";
      cells_layer.rects.push_back(std::move(rect));
    }
  }
  s.layers.push_back(std::move(cells_layer));

  // The colour ramp: 0 .. max, and the details line the script fills on hover.
  scene::Layer ramp;
  ramp.id = "ramp";
  const double ry = kTop + grid_h + kAxis + 4;
  constexpr int kSteps = 10;
  for (int k = 1; k <= kSteps; ++k) {
    scene::Rect r;
    r.x = kLeft + (k - 1) * 14;
    r.y = ry;
    r.w = 14;
    r.h = 10;
    r.fill = heat_color(static_cast<double>(k) / kSteps);
    r.title = "up to " + with_thousands(static_cast<uint64_t>(
                             std::ceil(static_cast<double>(max_cell) * k / kSteps))) +
              " samples";
    ramp.rects.push_back(std::move(r));
  }
  s.layers.push_back(std::move(ramp));
  s.texts.push_back(text_at(kLeft - 6, ry + 9, "1", fs - 2, scene::Anchor::kEnd));
  s.texts.push_back(text_at(kLeft + kSteps * 14 + 6, ry + 9, with_thousands(max_cell),
                            fs - 2, scene::Anchor::kStart));
  scene::Text details = text_at(kLeft + kSteps * 14 + 80, ry + 9, " ", fs, scene::Anchor::kStart);
  details.id = "details";
  s.texts.push_back(details);
  return s;
}

}  // namespace hearth::heat
