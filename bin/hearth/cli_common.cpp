#include "bin/hearth/cli_common.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/output_guard.h"
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
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (caps >> kCapPerfmon & 1) || (caps >> kCapSysAdmin & 1);
  }
  return false;
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
