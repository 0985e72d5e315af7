#include "render/report/timeline_section.h"

#include <filesystem>

#include "common/atomic_file.h"
#include "common/digits.h"
#include "render/report/html_text.h"
#include "render/svg/svg_writer.h"
#include "render/timeline/lanes.h"
#include "render/timeline/time_text.h"
#include "render/timeline/timeline_inputs.h"
#include "render/timeline/timeline_page.h"
#include "render/timeline/timeline_picture.h"

namespace hearth::report {
namespace {

namespace fs = std::filesystem;

// Above this many threads the picture in the page draws a pool as one lane (the page opens
// them).
constexpr size_t kGroupAbove = 40;

// "DIR/sched.intervals.tsv:7: ..." -> "sched.intervals.tsv:7: ...": the report names its files.
std::string in_dir(std::string line, const timeline::Sources& sources) {
  for (const std::string& src : sources.all()) {
    if (line.starts_with(src + ":"))
      return fs::path(src).filename().string() + line.substr(src.size());
  }
  return line;
}

}  // namespace

TimelineSection timeline_section(const std::string& dir, const std::string& target, double width,
                                 const std::string& heatmap) {
  TimelineSection t;
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / timeline::kIntervalsName, ec)) return t;
  auto sources = timeline::find_sources({dir});
  if (!sources) {
    t.problems.push_back(sources.error().message);
    return t;
  }
  auto inputs = timeline::read_inputs(*sources);
  if (!inputs) {
    t.problems.push_back(in_dir(inputs.error().message, *sources));
    return t;
  }
  for (const std::string& d : inputs->damage) {
    t.problems.push_back(in_dir(d, *sources) + " (the timeline draws what comes before it)");
  }
  const timeline::Model model =
      timeline::build_model(inputs->intervals, inputs->slots ? &*inputs->slots : nullptr,
                            inputs->samples ? &*inputs->samples : nullptr, inputs->names);
  if (model.lanes.empty()) return t;
  const std::string title = "Timeline: " + target;
  std::vector<std::string> damage;
  for (const std::string& d : inputs->damage) damage.push_back(in_dir(d, *sources));
  timeline::DataOptions o;
  o.title = title;
  o.source = timeline::kIntervalsName;
  o.heatmap = heatmap;
  o.damage = damage;
  if (auto w = write_file_atomically((fs::path(dir) / kTimelineHtml).string(),
                                     timeline::timeline_page(model, inputs->names, o));
      !w) {
    t.problems.push_back(w.error().message);
    return t;
  }
  t.pictures.push_back(kTimelineHtml);
  timeline::PictureOptions po;
  po.title = title;
  po.width = width;
  po.group_pools = model.lanes.size() > kGroupAbove;
  for (const std::string& d : damage)
    po.notes.push_back("damaged input: " + d + " (drawn up to there)");
  if (auto w = svg::write_svg(timeline::layout_timeline(model, po),
                              (fs::path(dir) / kTimelineSvg).string());
      !w) {
    t.problems.push_back(w.error().message);
  } else {
    t.pictures.push_back(kTimelineSvg);
    t.body += picture(kTimelineSvg, "timeline");
  }
  size_t intervals = 0;
  for (const timeline::Lane& l : model.lanes) intervals += l.count;
  std::string kept;
  if (model.slots != nullptr && model.whole_from_ns > model.window_start_ns) {
    kept = "whole intervals for the window's last " +
           timeline::duration_text(model.window_end_ns - model.whole_from_ns) +
           ", each thread's time per state per " + timeline::duration_text(model.slot_ns) +
           " slot before";
  } else {
    kept = "whole intervals over the whole window";
  }
  t.body += "<p class=\"links\"><a href=\"" + std::string(kTimelineHtml) +
            "\">open the interactive timeline</a> (zoom to microseconds; hover a lane for the "
            "state, how long, the CPU, who preempted or woke it; click a sample's tick for its "
            "stack" +
            (heatmap.empty() ? std::string() : " and the moment then") + ") \xc2\xb7 <a href=\"" +
            timeline::kIntervalsName + "\">" + timeline::kIntervalsName + "</a>";
  if (!inputs->sources.slots.empty()) {
    t.body += " \xc2\xb7 <a href=\"" + std::string(timeline::kSlotsName) + "\">" +
              timeline::kSlotsName + "</a>";
  }
  t.body += " \xc2\xb7 " + with_thousands(model.lanes.size()) + " threads, " +
            with_thousands(intervals) + " intervals; " + esc(kept);
  if (po.group_pools) t.body += "; thread pools drawn as one lane here (the timeline opens them)";
  t.body += "</p>\n";
  return t;
}

}  // namespace hearth::report
