#include "bin/hearth/pictures.h"

#include <cmath>

#include "bin/hearth/figures.h"
#include "render/cairo/cairo_writer.h"
#include "render/svg/svg_writer.h"

namespace hearth::cli {

OutFormat format_of(const std::string& path) {
  if (path.empty() || path == "-" || path.ends_with(".svg")) return OutFormat::kSvg;
  if (path.ends_with(".png")) return OutFormat::kPng;
  if (path.ends_with(".pdf")) return OutFormat::kPdf;
  return OutFormat::kUnknown;
}

Result<void> write_picture(const scene::Scene& scene, const std::string& path, OutFormat format,
                           double scale) {
  switch (format) {
    case OutFormat::kPng:
      return cairo_backend::write(scene, path, cairo_backend::Format::kPng, scale);
    case OutFormat::kPdf:
      return cairo_backend::write(scene, path, cairo_backend::Format::kPdf, 1);
    default:
      return svg::write_svg(scene, path.empty() ? "-" : path);
  }
}

std::string frames_text(const flame::FlameStats& st, size_t max_frames) {
  std::string out = thousands(st.frames) + (st.frames == 1 ? " frame" : " frames");
  std::string left;
  if (st.narrow > 0 && !std::isfinite(st.min_width_px)) {
    left += ", the " + thousands(st.narrow) + " below \"all\"";  // --max-frames 1
  } else if (st.narrow > 0) {
    left += ", " + thousands(st.narrow) + " narrower than " + plain_number(st.min_width_px) + " px";
  }
  if (st.deep > 0) {
    left += (left.empty() ? ", " : " and ") + thousands(st.deep) + " deeper than " +
            thousands(static_cast<uint64_t>(st.deep_below));
  }
  if (left.empty()) return out;
  left += " left out";
  if (st.max_frames_cut) left += " (--max-frames " + std::to_string(max_frames) + ")";
  return out + left;
}

}  // namespace hearth::cli
