// Fuzz target for the MMV series path: series TSV reader -> metric panels -> scene -> SVG.
//
// Input: the file's text. Invariants checked (abort with context on failure):
// - an error is one line, starts with the file's name and a line number, and quotes nothing
//   unprintable;
// - a parsed file's points name declared metrics, instances and strings;
// - the scene's rects, texts and polyline points are finite; the SVG is produced.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/series_tsv.h"
#include "render/charts/metrics_chart.h"
#include "render/svg/svg_writer.h"

namespace {

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "series_tsv_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "in/mmv.tsv";
  hearth::Result<hearth::series::SeriesFile> f = hearth::series::parse_series_tsv(text, path);
  if (!f) {
    const std::string& m = f.error().message;
    if (!m.starts_with(path + ":")) die("error does not name the file", m);
    for (char c : m) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f) die("error quotes an unprintable byte", m);
    }
    return 0;
  }
  for (const hearth::series::Point& p : f->points) {
    if (p.metric >= f->metrics.size() || p.instance >= f->instances.size()) {
      die("a point names an undeclared metric or instance");
    }
    if (f->metrics[p.metric].type == hearth::series::ValueType::kString &&
        p.exact >= f->strings.size()) {
      die("a string point out of range");
    }
  }
  hearth::charts::MetricsOptions o;
  o.width = 700;
  o.panels.max_panels = 12;
  hearth::scene::Scene s = hearth::charts::layout_metrics({*f}, o, nullptr);
  if (!std::isfinite(s.width) || !std::isfinite(s.height)) die("scene size not finite");
  for (const hearth::scene::Text& t : s.texts) {
    if (!std::isfinite(t.x) || !std::isfinite(t.y)) die("text position not finite", t.text);
  }
  for (const hearth::scene::Layer& l : s.layers) {
    for (const hearth::scene::Rect& r : l.rects) {
      if (!std::isfinite(r.x) || !std::isfinite(r.y) || !(r.w >= 0) || !(r.h >= 0)) {
        die("rect geometry not finite or negative", r.title);
      }
    }
    for (const hearth::scene::Polyline& p : l.lines) {
      for (auto [x, y] : p.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) die("polyline point not finite", p.title);
      }
    }
  }
  if (hearth::svg::to_svg(s).empty()) die("empty SVG");
  return 0;
}
