#include "render/report/heat_section.h"

#include <filesystem>

#include "common/atomic_file.h"
#include "formats/timed_samples.h"
#include "render/profile/process_names.h"
#include "render/report/html_text.h"
#include "render/svg/svg_writer.h"
#include "render/time/heat_grid.h"
#include "render/time/heat_page.h"
#include "render/time/heat_picture.h"

namespace hearth::report {
namespace {

namespace fs = std::filesystem;

}  // namespace

HeatSection heat_section(const std::string& dir, const std::string& target, double width) {
  HeatSection h;
  std::error_code ec;
  std::string name = kStacksSamples;
  if (!fs::is_regular_file(fs::path(dir) / name, ec)) name = kStacksRaw;
  const std::string path = (fs::path(dir) / name).string();
  if (!fs::is_regular_file(path, ec)) return h;
  h.present = true;
  auto read = timed_samples::read(path);
  if (!read) {
    h.problems.push_back(read.error().message);
    return h;
  }
  timed_samples::Samples& s = *read;
  profile::title_process_roots(&s);
  h.mono_ns = s.mono_ns;
  h.real_ns = s.real_ns;
  if (!s.damage.empty()) {
    h.problems.push_back(s.damage + " (the heatmap draws the samples before it)");
  }
  if (s.rounds.empty()) return h;
  auto layout = heat::choose_layout(s, 0, 0);
  if (!layout) {
    h.problems.push_back(name + ": " + layout.error().message);
    return h;
  }
  const std::string title = "When: " + target;
  if (auto w = write_file_atomically((fs::path(dir) / kHeatHtml).string(),
                                     heat::heatmap_page(s, *layout, {.title = title, .source = name}));
      !w) {
    h.problems.push_back(w.error().message);
    return h;
  }
  h.pictures.push_back(kHeatHtml);
  heat::Grid grid = heat::build_grid(s, *layout, nullptr);
  heat::PictureOptions po;
  po.title = title;
  po.width = width;
  po.state = heat::StateClass::kRunning;  // as the page: when work happened
  if (auto w = svg::write_svg(heat::layout_heatmap(grid, po), (fs::path(dir) / kHeatSvg).string());
      !w) {
    h.problems.push_back(w.error().message);
  } else {
    h.pictures.push_back(kHeatSvg);
    h.body += picture(kHeatSvg, "heatmap");
  }
  h.body += "<p class=\"links\"><a href=\"" + std::string(kHeatHtml) +
            "\">open the interactive heatmap</a> (select a time range for its flamegraph, two for "
            "a differential one; click a cell for every thread's stack at that moment) \xc2\xb7 "
            "<a href=\"" + esc(name) + "\">" + esc(name) + "</a> \xc2\xb7 columns of " +
            esc(heat::duration_text(layout->column_ns())) + ", rows of " +
            esc(heat::duration_text(layout->row_ns)) + ", " + std::to_string(s.rounds.size()) +
            " samples of " + std::to_string(s.threads.size()) + " threads</p>\n";
  return h;
}

}  // namespace hearth::report
