#include "bin/hearth/cli_common.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/file_io.h"
#include "common/output_guard.h"
#include "render/cairo/cairo_writer.h"
#include "render/flame/names.h"
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

std::optional<Pattern> filter_pattern(const std::string& option, const std::string& text,
                                      std::vector<std::string>* problems) {
  if (text.empty()) return std::nullopt;
  Result<Pattern> p = Pattern::compile(text);
  if (!p) {
    problems->push_back(option + " " + text + ": not a regular expression (" + p.error().message +
                        ")");
    return std::nullopt;
  }
  return std::move(*p);
}

bool outputs_are_new(const char* verb, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs) {
  Result<void> r = check_outputs(inputs, outputs);
  if (!r) std::fprintf(stderr, "hearth %s: %s\n", verb, r.error().message.c_str());
  return r.has_value();
}

bool may_trace() {
  constexpr int kCapSysAdmin = 21;
  constexpr int kCapPerfmon = 38;
  if (::geteuid() == 0) return true;
  std::istringstream status(read_file("/proc/self/status").value_or(std::string()));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (caps >> kCapPerfmon & 1) || (caps >> kCapSysAdmin & 1);
  }
  return false;
}

namespace {

std::string thousands(uint64_t n) {
  return flame::with_thousands(profile::whole_count(n));
}

}  // namespace

bool report_reading(const char* verb, const profile::ReadStats& rs) {
  auto where = [](uint64_t line, const std::string& file) {
    return "line " + std::to_string(line) + " of " + file;
  };
  if (rs.ignored == 1) {
    std::fprintf(stderr, "hearth %s: ignored 1 line that is not `frame;frame;... COUNT` (%s)\n",
                 verb, where(rs.first_ignored_line, rs.first_ignored_file).c_str());
  } else if (rs.ignored > 1) {
    std::fprintf(stderr,
                 "hearth %s: ignored %s lines that are not `frame;frame;... COUNT` (the first: "
                 "%s)\n",
                 verb, thousands(rs.ignored).c_str(),
                 where(rs.first_ignored_line, rs.first_ignored_file).c_str());
  }
  std::string limit = std::to_string(profile::kMaxLineBytes >> 20) + " MiB";
  if (rs.overlong == 1) {
    std::fprintf(stderr, "hearth %s: skipped %s: it is longer than the %s limit for one stack\n",
                 verb, where(rs.first_overlong_line, rs.first_overlong_file).c_str(),
                 limit.c_str());
  } else if (rs.overlong > 1) {
    std::fprintf(stderr,
                 "hearth %s: skipped %s lines longer than the %s limit for one stack (the first: "
                 "%s)\n",
                 verb, thousands(rs.overlong).c_str(), limit.c_str(),
                 where(rs.first_overlong_line, rs.first_overlong_file).c_str());
  }
  if (rs.overflow_line != 0) {
    std::fprintf(stderr,
                 "hearth %s: %s: the counts add up to more than %s (2^64 - 1), the most hearth "
                 "counts exactly — scale them down\n",
                 verb, where(rs.overflow_line, rs.overflow_file).c_str(),
                 thousands(profile::kMaxWholeCount).c_str());
    return false;
  }
  return true;
}

std::string plain_number(double v) {
  if (!(std::fabs(v) < 100)) return flame::with_thousands(v);
  int decimals =
      v == 0 ? 1 : std::clamp(2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))), 1, 15);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
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

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace hearth::cli
