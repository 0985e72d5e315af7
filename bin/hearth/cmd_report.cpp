#include "bin/hearth/cmd_report.h"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "bin/hearth/input_checks.h"
#include "render/report/report.h"

namespace hearth::cli {

namespace fs = std::filesystem;

int run_report(const ReportArgs& a) {
  std::vector<std::string> problems;
  if (!fs::is_directory(a.dir)) problems.push_back(a.dir + ": not a directory");
  if (!a.baseline.empty() && !fs::is_directory(a.baseline))
    problems.push_back("--baseline " + a.baseline + ": not a directory");
  if (!(a.width >= 300 && a.width <= 100000)) problems.push_back("--width must be 300..100000");
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth report: %s\n", p.c_str());
    return 2;
  }
  std::vector<std::string> inputs = report::recorded_files(a.dir);
  if (!a.baseline.empty())
    inputs.push_back((fs::path(a.baseline) / report::kStacksFolded).string());
  if (!outputs_are_new("report", inputs, report::rendered_files(a.dir))) return 2;
  report::RenderOptions ro;
  ro.dir = a.dir;
  ro.baseline_dir = a.baseline;
  ro.width = a.width;
  auto rendered = report::render_report(ro);
  if (!rendered) {
    std::fprintf(stderr, "hearth report: %s\n", rendered.error().message.c_str());
    return 1;
  }
  for (const std::string& p : rendered->problems)
    std::fprintf(stderr, "hearth report: %s\n", p.c_str());
  std::fprintf(stderr, "hearth report: wrote %s (%zu pictures, %zu threads)\n",
               report::index_path(a.dir).c_str(), rendered->pictures.size(), rendered->threads);
  return rendered->pictures.empty() && !rendered->problems.empty() ? 1 : 0;
}

}  // namespace hearth::cli
