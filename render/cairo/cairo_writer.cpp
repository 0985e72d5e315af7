#include "render/cairo/cairo_writer.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string_view>
#include <utility>

#include "common/atomic_file.h"

namespace hearth::cairo_backend {
namespace {

// Move-only owners for cairo objects: Deleter<cairo_surface_destroy> and so on.
template <auto Destroy>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Destroy(p);
  }
};
using SurfacePtr = std::unique_ptr<cairo_surface_t, Deleter<cairo_surface_destroy>>;
using ContextPtr = std::unique_ptr<cairo_t, Deleter<cairo_destroy>>;
using PatternPtr = std::unique_ptr<cairo_pattern_t, Deleter<cairo_pattern_destroy>>;
using FontOptionsPtr = std::unique_ptr<cairo_font_options_t, Deleter<cairo_font_options_destroy>>;

constexpr const char* kFontFamily = "DejaVu Sans";
constexpr double kMaxImageSide = 32767;  // px; cairo refuses larger image surfaces

// cairo's toy text API refuses a string that is not valid UTF-8 or holds a Unicode
// noncharacter by putting the whole context into an error state, which stops all drawing.
// Symbol names are not guaranteed clean, so every offending byte becomes U+FFFD.
std::string clean_utf8(std::string_view s) {
  static constexpr char32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto lead = static_cast<unsigned char>(s[i]);
    size_t len = lead < 0x80           ? 1
                 : (lead >> 5) == 0x6  ? 2
                 : (lead >> 4) == 0xe  ? 3
                 : (lead >> 3) == 0x1e ? 4
                                       : 0;
    char32_t cp = len == 1 ? lead : len == 2 ? lead & 0x1f : len == 3 ? lead & 0x0f : lead & 0x07;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b & 0xc0) == 0x80;
      cp = (cp << 6) | (b & 0x3f);
    }
    ok = ok && cp >= kMinForLength[len] && cp < 0x110000 && (cp & 0xfffff800) != 0xd800 &&
         !(cp >= 0xfdd0 && cp <= 0xfdef) && (cp & 0xfffe) != 0xfffe;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xef\xbf\xbd");
      i += 1;
    }
  }
  return out;
}

void set_color(cairo_t* cr, scene::Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void select_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, kFontFamily, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// Grey antialiasing and no hinting: the picture does not depend on the host's fontconfig
// settings (no subpixel colour fringes), and advances are not rounded to whole pixels, so
// anchored texts sit where the layout put them at any scale.
void set_font_options(cairo_t* cr) {
  FontOptionsPtr options(cairo_font_options_create());
  cairo_font_options_set_antialias(options.get(), CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(options.get(), CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(options.get(), CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, options.get());
}

// As the SVG's <linearGradient>: the top colour down to 5% of the height, the bottom colour
// from 95%, linear in between.
void draw_background(cairo_t* cr, const scene::Scene& s) {
  PatternPtr gradient(cairo_pattern_create_linear(0, 0, 0, s.height));
  for (auto [offset, c] : {std::pair{0.05, s.background_top}, {0.95, s.background_bottom}}) {
    cairo_pattern_add_color_stop_rgb(gradient.get(), offset, c.r / 255.0, c.g / 255.0, c.b / 255.0);
  }
  cairo_set_source(cr, gradient.get());
  cairo_paint(cr);
}

void draw_text(cairo_t* cr, const scene::Text& t) {
  if (t.hidden || t.text.empty()) return;
  std::string utf8 = clean_utf8(t.text);
  select_font(cr, t.size, t.bold);
  double x = t.x;
  if (t.anchor != scene::Anchor::kStart) {
    // Like SVG's text-anchor: by the advance width, not the ink extents.
    cairo_text_extents_t extents;
    cairo_text_extents(cr, utf8.c_str(), &extents);
    x -= t.anchor == scene::Anchor::kMiddle ? extents.x_advance / 2 : extents.x_advance;
  }
  set_color(cr, t.color);
  cairo_move_to(cr, x, t.y);
  cairo_show_text(cr, utf8.c_str());
  cairo_new_path(cr);
}

// Expects the label font to be selected.
void draw_rect(cairo_t* cr, const scene::Rect& r) {
  if (r.stroke_width > 0) {
    // The outline is drawn inside the rect, so neighbouring frames stay untouched.
    double sw = r.stroke_width;
    set_color(cr, r.stroke);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_fill(cr);
    if (r.w > 2 * sw && r.h > 2 * sw) {
      set_color(cr, r.fill);
      cairo_rectangle(cr, r.x + sw, r.y + sw, r.w - 2 * sw, r.h - 2 * sw);
      cairo_fill(cr);
    }
    if (r.label.empty()) return;
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  } else {
    set_color(cr, r.fill);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    if (r.label.empty()) {
      cairo_fill(cr);
      return;
    }
    cairo_fill_preserve(cr);
  }
  cairo_save(cr);
  cairo_clip(cr);                     // the label never spills out of its frame
  cairo_set_source_rgb(cr, 0, 0, 0);  // the scene has no label colour; the SVG's are black
  cairo_move_to(cr, r.label_x, r.label_y);
  cairo_show_text(cr, clean_utf8(r.label).c_str());
  cairo_restore(cr);
  cairo_new_path(cr);
}

void draw_polyline(cairo_t* cr, const scene::Polyline& p) {
  if (p.points.size() < 2 || !(p.width > 0)) return;
  set_color(cr, p.color);
  cairo_set_line_width(cr, p.width);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_move_to(cr, p.points[0].first, p.points[0].second);
  for (size_t i = 1; i < p.points.size(); ++i) {
    cairo_line_to(cr, p.points[i].first, p.points[i].second);
  }
  cairo_stroke(cr);
}

// Paint order as in the SVG: background, texts, then the layers in order. Returns the status
// of drawing (an error surface's status included).
cairo_status_t draw(cairo_surface_t* surface, const scene::Scene& s, double scale) {
  ContextPtr cr(cairo_create(surface));
  cairo_scale(cr.get(), scale, scale);
  set_font_options(cr.get());
  draw_background(cr.get(), s);
  for (const scene::Text& t : s.texts) draw_text(cr.get(), t);
  select_font(cr.get(), s.font_size, false);
  for (const scene::Layer& layer : s.layers) {
    for (const scene::Rect& r : layer.rects) {
      if (!r.hover_only) draw_rect(cr.get(), r);
    }
    for (const scene::Polyline& p : layer.lines) draw_polyline(cr.get(), p);
  }
  return cairo_status(cr.get());
}

// Whole pixels covering PX, forgiving the rounding error of a product like 600 × 2.0000001.
double device_pixels(double px) {
  return std::ceil(px - 1e-6);
}

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// Checked before any file is created, so a bad request leaves nothing behind.
Result<void> check_size(const scene::Scene& s, double scale, Format format,
                        const std::string& what) {
  if (!std::isfinite(scale) || scale <= 0) {
    return fail(what + ": scale must be a positive number, not " + format_number(scale));
  }
  double w = s.width * scale;
  double h = s.height * scale;
  std::string size = format_number(w) + "x" + format_number(h);
  if (!(std::isfinite(w) && std::isfinite(h) && w >= 1 && h >= 1)) {
    return fail(what + ": picture size " + size + " must be at least 1x1");
  }
  if (format == Format::kPng &&
      (device_pixels(w) > kMaxImageSide || device_pixels(h) > kMaxImageSide)) {
    return fail(what + ": a PNG of " + size + " px is too large for cairo (at most " +
                format_number(kMaxImageSide) + " px a side) - try a smaller scale");
  }
  return {};
}

cairo_status_t emit_png(const scene::Scene& s, double scale, cairo_write_func_t write_func,
                        void* closure) {
  // RGB24: the background is opaque, and a PNG without alpha is smaller.
  auto w = static_cast<int>(device_pixels(s.width * scale));
  auto h = static_cast<int>(device_pixels(s.height * scale));
  SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h));
  cairo_status_t status = draw(surface.get(), s, scale);
  if (status != CAIRO_STATUS_SUCCESS) return status;
  return cairo_surface_write_to_png_stream(surface.get(), write_func, closure);
}

cairo_status_t emit_pdf(const scene::Scene& s, double scale, cairo_write_func_t write_func,
                        void* closure) {
  SurfacePtr surface(
      cairo_pdf_surface_create_for_stream(write_func, closure, s.width * scale, s.height * scale));
  // No creation date: the same scene gives the same bytes.
  cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATE_DATE, "");
  cairo_status_t status = draw(surface.get(), s, scale);
  cairo_surface_finish(surface.get());  // writes the document through write_func
  if (status != CAIRO_STATUS_SUCCESS) return status;
  return cairo_surface_status(surface.get());
}

// cairo_write_func_t over an AtomicFile, which remembers a failed write for commit().
cairo_status_t write_to_file(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<AtomicFile*>(closure)->write({reinterpret_cast<const char*>(data), length});
  return CAIRO_STATUS_SUCCESS;
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

Result<void> write(const scene::Scene& scene, const std::string& path, Format format,
                   double scale) {
  const std::string what = "cannot write " + path;
  RETURN_IF_ERROR(check_size(scene, scale, format, what));
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
  cairo_status_t status = format == Format::kPng ? emit_png(scene, scale, write_to_file, &file)
                                                 : emit_pdf(scene, scale, write_to_file, &file);
  if (status != CAIRO_STATUS_SUCCESS) return fail(what + ": " + cairo_status_to_string(status));
  return file.commit();
}

Result<std::string> render_png(const scene::Scene& scene, double scale) {
  const std::string what = "cannot render PNG";
  RETURN_IF_ERROR(check_size(scene, scale, Format::kPng, what));
  std::string bytes;
  cairo_status_t status = emit_png(scene, scale, append_to_string, &bytes);
  if (status != CAIRO_STATUS_SUCCESS) return fail(what + ": " + cairo_status_to_string(status));
  return bytes;
}

}  // namespace hearth::cairo_backend
