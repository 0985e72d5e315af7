#include "bin/hearth/cmd_timeline.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"
#include "bin/hearth/seconds.h"
#include "common/atomic_file.h"
#include "common/digits.h"
#include "render/timeline/lanes.h"
#include "render/timeline/time_text.h"
#include "render/timeline/timeline_inputs.h"
#include "render/timeline/timeline_page.h"
#include "render/timeline/timeline_picture.h"

namespace hearth::cli {
namespace {

namespace fs = std::filesystem;

bool is_html(const std::string& path) {
  return path.ends_with(".html") || path.ends_with(".htm");
}

// The moment link: ARGS' --heatmap, else heat.html when the page is written beside one.
std::string heatmap_link(const TimelineArgs& a) {
  if (!a.heatmap.empty()) return a.heatmap;
  std::error_code ec;
  const fs::path out_dir = fs::absolute(a.output, ec).parent_path();
  if (fs::is_regular_file(out_dir / "heat.html", ec)) return "heat.html";
  return "";
}

}  // namespace

std::vector<std::string> validate_timeline(const TimelineArgs& a) {
  std::vector<std::string> problems;
  if (a.inputs.empty())
    problems.push_back("no input: give a report directory or a sched.intervals.tsv");
  if (a.output.empty()) {
    problems.push_back("no output: give -o OUT.html (or .svg, .png, .pdf)");
  } else if (!is_html(a.output) && format_of(a.output) == OutFormat::kUnknown) {
    problems.push_back("-o " + a.output + ": the output must end in .html, .svg, .png or .pdf");
  } else if (a.output == "-") {
    problems.push_back("-o -: give a file name (.html, .svg, .png or .pdf)");
  }
  filter_pattern("--only-threads", a.only_threads, &problems);
  auto check_time = [&](const char* option, double s) {
    if (given(s) && !(s >= 0 && s <= kMaxSeconds))
      problems.push_back(std::string(option) +
                         " must be seconds since the timeline's start (0 or more)");
  };
  check_time("--from", a.from);
  check_time("--to", a.to);
  if (given(a.from) && given(a.to) && !(a.to > a.from))
    problems.push_back("--to must be later than --from");
  if (!(a.width >= 400 && a.width <= 100000)) problems.push_back("--width must be 400..100000");
  if (!(a.scale > 0 && a.scale <= 8)) problems.push_back("--scale must be above 0 and at most 8");
  return problems;
}

int run_timeline(const TimelineArgs& a) {
  std::vector<std::string> problems = validate_timeline(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth timeline: %s\n", p.c_str());
    return 2;
  }
  auto sources = timeline::find_sources(a.inputs);
  if (!sources) {
    std::fprintf(stderr, "hearth timeline: %s\n", sources.error().message.c_str());
    return 2;
  }
  if (!outputs_are_new("timeline", sources->all(), {a.output})) return 2;
  auto inputs = timeline::read_inputs(*sources);
  if (!inputs) {
    std::fprintf(stderr, "hearth timeline: %s\n", inputs.error().message.c_str());
    return 2;
  }
  for (const std::string& d : inputs->damage) {
    // As `hearth heatmap` treats a damaged file: said once, the rest drawn, exit status 0.
    std::fprintf(stderr, "hearth timeline: %s (drawing what comes before it)\n", d.c_str());
  }
  std::vector<std::string> unused;
  std::optional<Pattern> only = filter_pattern("--only-threads", a.only_threads, &unused);
  timeline::ModelOptions mo;
  mo.only_threads = only ? &*only : nullptr;
  const timeline::Model model =
      timeline::build_model(inputs->intervals, inputs->slots ? &*inputs->slots : nullptr,
                            inputs->samples ? &*inputs->samples : nullptr, inputs->names, mo);
  if (model.lanes.empty()) {
    std::fprintf(
        stderr, "hearth timeline: %s: %s\n", sources->intervals.c_str(),
        model.left_out > 0 ? "no thread's name matches --only-threads" : "no thread in it to draw");
    return 2;
  }
  // Seconds since time 0 (the samples' time 0, else the window's start: Model::origin_ns).
  const uint64_t from =
      given(a.from) ? std::max(model.start_ns, model.origin_ns + seconds_to_ns(a.from)) : 0;
  const uint64_t to = given(a.to) ? model.origin_ns + seconds_to_ns(a.to) : 0;
  if ((from != 0 && from >= model.end_ns) || (to != 0 && to <= model.start_ns)) {
    const auto since = [&model](uint64_t t) {
      return static_cast<int64_t>(t) - static_cast<int64_t>(model.origin_ns);
    };
    std::fprintf(
        stderr, "hearth timeline: --from/--to: the recording spans %s to %s\n",
        timeline::seconds_text(std::max<int64_t>(0, since(model.start_ns)), 1'000'000).c_str(),
        timeline::seconds_text(since(model.end_ns), 1'000'000).c_str());
    return 2;
  }
  std::string title = a.title;
  if (title.empty()) {
    std::string target;
    if (model.processes.size() == 1 && !model.processes[0].name.empty()) {
      target = model.processes[0].name + " (pid " + std::to_string(model.processes[0].pid) + ")";
    } else if (model.processes.size() > 1) {
      target = std::to_string(model.processes.size()) + " processes";
    }
    title = "Timeline" + (target.empty() ? std::string() : ": " + target);
  }
  std::string source;
  for (const std::string& s : sources->all()) source += (source.empty() ? "" : ", ") + s;
  Result<void> written;
  if (is_html(a.output)) {
    timeline::DataOptions o;
    o.title = title;
    o.source = a.inputs.size() == 1 ? a.inputs[0] : source;
    o.heatmap = heatmap_link(a);
    o.group_pools = a.group_threads;
    o.from_ns = from;
    o.to_ns = to;
    o.damage = inputs->damage;
    written = write_file_atomically(a.output, timeline::timeline_page(model, inputs->names, o));
  } else {
    timeline::PictureOptions po;
    po.title = title;
    po.width = a.width;
    po.group_pools = a.group_threads;
    po.from_ns = from;
    po.to_ns = to;
    // The damage, said in the picture with the file's name (not its directory: the same
    // recording gives the same picture wherever it lies).
    for (const std::string& d : inputs->damage) {
      std::string note = d;
      for (const std::string& src : sources->all()) {
        if (note.starts_with(src + ":"))
          note = fs::path(src).filename().string() + note.substr(src.size());
      }
      po.notes.push_back("damaged input: " + note + " (drawn up to there)");
    }
    written =
        write_picture(timeline::layout_timeline(model, po), a.output, format_of(a.output), a.scale);
  }
  if (!written) {
    std::fprintf(stderr, "hearth timeline: %s\n", written.error().message.c_str());
    return 1;
  }
  size_t intervals = 0;
  for (const timeline::Lane& l : model.lanes) intervals += l.count;
  std::fprintf(
      stderr, "hearth timeline: wrote %s: %s threads over %s, %s intervals%s%s\n", a.output.c_str(),
      with_thousands(model.lanes.size()).c_str(),
      timeline::duration_text(model.end_ns - model.start_ns).c_str(),
      with_thousands(intervals).c_str(),
      model.ticks > 0 ? (", " + with_thousands(model.ticks) + " sample ticks").c_str() : "",
      model.slots != nullptr && model.whole_from_ns > model.window_start_ns
          ? (" (slots of " + timeline::duration_text(model.slot_ns) + " before +" +
             timeline::duration_text(model.whole_from_ns - model.start_ns) + ")")
                .c_str()
          : "");
  return 0;
}

}  // namespace hearth::cli
