#include "render/cairo/cairo_writer.h"

#include <cairo.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>

namespace hearth::cairo_backend {
namespace {

using scene::Rgb;

constexpr Rgb kTop{0xee, 0xee, 0xee};
constexpr Rgb kBottom{0xee, 0xee, 0xb0};
constexpr Rgb kOrange{230, 110, 30};
constexpr Rgb kBlue{50, 120, 220};
constexpr Rgb kGreen{40, 190, 60};

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;

struct PngReader {
  std::string_view bytes;
  size_t pos = 0;
};

cairo_status_t read_png_bytes(void* closure, unsigned char* data, unsigned int length) {
  auto* reader = static_cast<PngReader*>(closure);
  if (reader->bytes.size() - reader->pos < length) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(data, reader->bytes.data() + reader->pos, length);
  reader->pos += length;
  return CAIRO_STATUS_SUCCESS;
}

Surface decode_png(const std::string& png) {
  PngReader reader{png};
  Surface s(cairo_image_surface_create_from_png_stream(read_png_bytes, &reader));
  EXPECT_EQ(cairo_surface_status(s.get()), CAIRO_STATUS_SUCCESS);
  cairo_surface_flush(s.get());
  return s;
}

// The colour at pixel (X, Y); our PNGs are opaque, so premultiplication does not matter.
Rgb pixel(cairo_surface_t* s, int x, int y) {
  const unsigned char* row = cairo_image_surface_get_data(s) +
                             static_cast<ptrdiff_t>(y) * cairo_image_surface_get_stride(s);
  uint32_t p;
  std::memcpy(&p, row + 4 * x, sizeof p);
  return {static_cast<uint8_t>(p >> 16), static_cast<uint8_t>(p >> 8), static_cast<uint8_t>(p)};
}

// How many pixels in [x0, x1) × [y0, y1) differ from COLOR.
int count_not(cairo_surface_t* s, Rgb color, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) n += pixel(s, x, y) != color;
  }
  return n;
}

scene::Text make_text(double x, double y, std::string text, scene::Anchor anchor) {
  scene::Text t;
  t.x = x;
  t.y = y;
  t.text = std::move(text);
  t.anchor = anchor;
  return t;
}

scene::Rect make_rect(double x, double y, double w, double h, Rgb fill, std::string label = "") {
  scene::Rect r;
  r.x = x;
  r.y = y;
  r.w = w;
  r.h = h;
  r.fill = fill;
  r.label = std::move(label);
  r.label_x = x + 4;
  r.label_y = y + 12;
  r.title = "tooltip, never drawn";
  return r;
}

// 400×200: a bold centred title at the top; orange "main" across the bottom (label at its
// left), blue and green frames above it, green with a label far too long for it.
scene::Scene sample_scene() {
  scene::Scene s;
  s.width = 400;
  s.height = 200;
  s.kind = "flame";
  s.background_top = kTop;
  s.background_bottom = kBottom;
  scene::Text title = make_text(200, 24, "Flame Graph", scene::Anchor::kMiddle);
  title.size = 17;
  title.bold = true;
  s.texts.push_back(title);
  scene::Layer frames;
  frames.id = "frames";
  frames.rects.push_back(make_rect(10, 160, 380, 30, kOrange, "main"));
  frames.rects.push_back(make_rect(10, 120, 200, 30, kBlue));
  frames.rects.push_back(
      make_rect(220, 120, 100, 30, kGreen, "a_function_name_much_too_long_for_its_frame"));
  s.layers.push_back(frames);
  return s;
}

TEST(CairoWriter, ImageHasTheScenesSize) {
  auto png = render_png(sample_scene());
  ASSERT_TRUE(png) << png.error().message;
  Surface image = decode_png(*png);
  EXPECT_EQ(cairo_image_surface_get_width(image.get()), 400);
  EXPECT_EQ(cairo_image_surface_get_height(image.get()), 200);
}

TEST(CairoWriter, RectsAreFilledWithTheirColours) {
  Surface image = decode_png(render_png(sample_scene()).value());
  EXPECT_EQ(pixel(image.get(), 300, 182), kOrange);
  EXPECT_EQ(pixel(image.get(), 110, 135), kBlue);
  EXPECT_EQ(pixel(image.get(), 270, 143), kGreen);  // below the label's descenders
}

TEST(CairoWriter, BackgroundIsTheGradientsTopColourNearTheTop) {
  Surface image = decode_png(render_png(sample_scene()).value());
  for (Rgb c : {pixel(image.get(), 5, 3), pixel(image.get(), 395, 5)}) {
    EXPECT_NEAR(c.r, kTop.r, 2);
    EXPECT_NEAR(c.g, kTop.g, 2);
    EXPECT_NEAR(c.b, kTop.b, 2);
  }
  Rgb bottom = pixel(image.get(), 2, 198);
  EXPECT_NEAR(bottom.b, kBottom.b, 2);
}

TEST(CairoWriter, LabelIsDrawnInsideItsRect) {
  Surface image = decode_png(render_png(sample_scene()).value());
  EXPECT_GT(count_not(image.get(), kOrange, 14, 161, 60, 176), 20);
}

TEST(CairoWriter, LabelIsClippedToItsRect) {
  Surface image = decode_png(render_png(sample_scene()).value());
  EXPECT_GT(count_not(image.get(), kGreen, 221, 121, 319, 149), 20);  // the label is drawn
  // Right of the green frame every row is plain background (the gradient is vertical).
  for (int y = 118; y < 152; ++y) {
    Rgb background = pixel(image.get(), 398, y);
    EXPECT_EQ(count_not(image.get(), background, 321, y, 398, y + 1), 0) << "row " << y;
  }
}

TEST(CairoWriter, MiddleAnchoredTextIsCentred) {
  Surface image = decode_png(render_png(sample_scene()).value());
  int left = 400, right = -1;
  for (int y = 5; y < 30; ++y) {
    Rgb background = pixel(image.get(), 0, y);  // the gradient is vertical
    for (int x = 0; x < 400; ++x) {
      if (pixel(image.get(), x, y) == background) continue;
      left = std::min(left, x);
      right = std::max(right, x);
    }
  }
  ASSERT_GE(right, 0) << "title not drawn";
  EXPECT_NEAR((left + right) / 2.0, 200, 3);
}

TEST(CairoWriter, HiddenTextIsNotDrawn) {
  scene::Scene s;
  s.width = 400;
  s.height = 40;
  s.background_top = s.background_bottom = kTop;  // flat, so any ink shows
  scene::Text hidden = make_text(10, 24, "Reset Zoom", scene::Anchor::kStart);
  hidden.hidden = true;
  s.texts.push_back(hidden);
  s.texts.push_back(make_text(390, 24, "Search", scene::Anchor::kEnd));
  Surface image = decode_png(render_png(s).value());
  EXPECT_EQ(count_not(image.get(), kTop, 0, 0, 200, 40), 0);
  EXPECT_GT(count_not(image.get(), kTop, 300, 0, 391, 40), 20);  // the visible one is drawn
  EXPECT_EQ(count_not(image.get(), kTop, 392, 0, 400, 40), 0);   // and ends at its anchor
}

TEST(CairoWriter, ScaleMultipliesThePixelSize) {
  Surface image = decode_png(render_png(sample_scene(), 2.0).value());
  EXPECT_EQ(cairo_image_surface_get_width(image.get()), 800);
  EXPECT_EQ(cairo_image_surface_get_height(image.get()), 400);
  EXPECT_EQ(pixel(image.get(), 600, 364), kOrange);
  EXPECT_EQ(pixel(image.get(), 220, 270), kBlue);
}

TEST(CairoWriter, InvalidUtf8IsDrawnNotFatal) {
  scene::Scene s = sample_scene();
  s.layers[0].rects[0].label = "bad\xff\xc0\xaf name";
  s.texts.push_back(make_text(10, 40, "\xed\xa0\x80 surrogate", scene::Anchor::kStart));
  auto png = render_png(s);
  ASSERT_TRUE(png) << png.error().message;
  Surface image = decode_png(*png);
  EXPECT_GT(count_not(image.get(), kOrange, 14, 161, 60, 176), 20);
}

TEST(CairoWriter, OversizedPngIsAnError) {
  scene::Scene s = sample_scene();
  s.height = 20000;
  auto png = render_png(s, 2.0);
  ASSERT_FALSE(png);
  EXPECT_NE(png.error().message.find("too large"), std::string::npos) << png.error().message;
  EXPECT_FALSE(render_png(s, 0.0));
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CairoWriterFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("cairo_writer_test." +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(CairoWriterFile, WritesPng) {
  std::string path = dir_ / "flame.png";
  auto written = write(sample_scene(), path, Format::kPng);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(read_file(path), render_png(sample_scene()).value());
  // Nothing but the output: the temporary file was renamed into place.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(CairoWriterFile, WritesPdf) {
  std::string path = dir_ / "flame.pdf";
  auto written = write(sample_scene(), path, Format::kPdf);
  ASSERT_TRUE(written) << written.error().message;
  std::string pdf = read_file(path);
  EXPECT_TRUE(pdf.starts_with("%PDF")) << pdf.substr(0, 16);
  // Deterministic: cairo would otherwise stamp the time of writing.
  EXPECT_EQ(pdf.find("/CreationDate"), std::string::npos);
}

TEST_F(CairoWriterFile, UnwritablePathIsAnErrorNamingIt) {
  std::string path = dir_ / "no-such-dir" / "flame.png";
  for (Format format : {Format::kPng, Format::kPdf}) {
    auto written = write(sample_scene(), path, format);
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("cannot write " + path), std::string::npos)
        << written.error().message;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no-such-dir"));
}

}  // namespace
}  // namespace hearth::cairo_backend
