#include "bin/hearth/cmd_flame.h"

#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"
#include "bin/hearth/profile_output.h"

#include <unistd.h>

#include <cstdio>

#include "common/result.h"
#include "render/cairo/cairo_writer.h"
#include "render/flame/layout.h"
#include "render/profile/filters.h"
#include "render/profile/folded_reader.h"
#include "render/profile/pprof_writer.h"
#include "render/profile/speedscope_writer.h"
#include "render/svg/svg_writer.h"

namespace hearth::cli {
namespace {

bool parse_minwidth(const std::string& s, double* value, bool* percent) {
  std::string num = s;
  *percent = !num.empty() && num.back() == '%';
  if (*percent) num.pop_back();
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  *value = std::strtod(num.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

std::vector<std::string> validate_flame(const FlameArgs& a) {
  std::vector<std::string> problems;
  double mw;
  bool pct;
  if (!parse_minwidth(a.minwidth, &mw, &pct)) {
    problems.push_back("--minwidth " + a.minwidth +
                       ": expected a number of px or a percentage like 0.5%");
  }
  if (!(a.width >= 50 && a.width <= 1e6))
    problems.push_back("--width must be between 50 and 1000000");
  if (!(a.height >= 1 && a.height <= 1000))
    problems.push_back("--height must be between 1 and 1000");
  if (!(a.fontsize > 0 && a.fontsize <= 200))
    problems.push_back("--fontsize must be above 0 and at most 200");
  if (!(a.fontwidth > 0 && a.fontwidth <= 10))
    problems.push_back("--fontwidth must be above 0 and at most 10");
  if (!scene::parse_palette(a.colors)) {
    problems.push_back("--colors " + a.colors + ": unknown palette; use one of " +
                       std::string(scene::palette_names()));
  }
  scene::Rgb t, b;
  if (!scene::background_colors(a.bgcolors, scene::Palette::kHot, &t, &b)) {
    problems.push_back("--bgcolors " + a.bgcolors + ": use yellow, blue, green, grey or #rrggbb");
  }
  if (!(a.factor > 0)) problems.push_back("--factor must be above 0");
  if (!(a.total >= 0)) problems.push_back("--total must not be negative");
  if (!(a.scale > 0 && a.scale <= 8)) problems.push_back("--scale must be above 0 and at most 8");
  filter_pattern("--only-threads", a.only_threads, &problems);
  filter_pattern("--grep", a.grep, &problems);
  if (format_of(a.output) == OutFormat::kUnknown && !is_pprof_path(a.output) &&
      !profile::is_speedscope_path(a.output)) {
    problems.push_back("-o " + a.output +
                       ": the output must end in .svg, .png, .pdf, .pb.gz (pprof) or "
                       ".speedscope.json");
  }
  int stdin_uses = 0;
  for (const std::string& f : a.inputs) stdin_uses += f == "-";
  if (stdin_uses > 1) problems.push_back("standard input ('-') can be read only once");
  return problems;
}

int run_flame(const FlameArgs& a) {
  std::vector<std::string> problems = validate_flame(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth flame: %s\n", p.c_str());
    return 2;
  }
  std::vector<std::string> inputs = a.inputs;
  if (inputs.empty()) inputs.push_back("-");
  for (const std::string& f : inputs) {
    if (f == "-" && isatty(STDIN_FILENO)) {
      std::fprintf(stderr,
                   "hearth flame: no input: give folded stack files, or pipe them in "
                   "(e.g. hearth stacks -p PID | hearth flame -o out.svg)\n");
      return 2;
    }
  }
  if (a.output.empty() && isatty(STDOUT_FILENO)) {
    std::fprintf(stderr, "hearth flame: no output: give -o OUT.svg (or .png, .pdf)\n");
    return 2;
  }
  if (!outputs_are_new("flame", inputs, {a.output.empty() ? "-" : a.output})) return 2;

  profile::FrameTree tree(a.flamechart ? profile::Merge::kLastChild : profile::Merge::kAll);
  profile::FoldedReader reader(
      tree, {.format = a.format == "gdb"           ? profile::InputFormat::kGdb
                       : a.format == "eu-stack"    ? profile::InputFormat::kEuStack
                       : a.format == "folded"      ? profile::InputFormat::kFolded
                       : a.format == "pprof"       ? profile::InputFormat::kPprof
                       : a.format == "speedscope"  ? profile::InputFormat::kSpeedscope
                       : a.format == "perf-script" ? profile::InputFormat::kPerfScript
                                                   : profile::InputFormat::kAuto,
             .reverse = a.reverse});
  for (const std::string& f : inputs) {
    if (auto r = reader.read_file(f); !r) {
      std::fprintf(stderr, "hearth flame: %s\n", r.error().message.c_str());
      return 2;
    }
  }
  tree.finalize();
  const profile::ReadStats& rs = reader.stats();
  if (!report_reading("flame", rs)) return 2;
  report_perf_script("flame", reader.perf_script());

  profile::FilterOptions filters;
  std::vector<std::string> validated;  // stays empty: validate_flame compiled them already
  filters.only_threads = filter_pattern("--only-threads", a.only_threads, &validated);
  filters.grep = filter_pattern("--grep", a.grep, &validated);
  filters.group_threads = a.group_threads;
  if (profile::filters_active(filters)) tree = profile::apply_filters(tree, filters);

  if (!(tree.total().value > 0)) {
    std::fprintf(stderr,
                 "hearth flame: no stack counts in the input (%llu stack lines%s) — expected lines "
                 "like `main;work;leaf 12`\n",
                 static_cast<unsigned long long>(rs.lines),
                 profile::filters_active(filters) ? ", none left after the filters" : "");
    return 2;
  }

  if (is_pprof_path(a.output)) {
    // The stacks themselves (after the filters), for pprof's tools: no picture.
    if (auto w = profile::write_pprof(tree, a.output); !w) {
      std::fprintf(stderr, "hearth flame: %s\n", w.error().message.c_str());
      return w.error().errnum == 0 ? 2 : 1;
    }
    return 0;
  }
  if (profile::is_speedscope_path(a.output)) {
    // The stacks themselves (after the filters), for speedscope: no picture.
    if (auto w = profile::write_speedscope(tree, a.output); !w) {
      std::fprintf(stderr, "hearth flame: %s\n", w.error().message.c_str());
      return w.error().errnum == 0 ? 2 : 1;
    }
    return 0;
  }

  flame::FlameOptions fo;
  fo.title = a.title;
  fo.subtitle = a.subtitle;
  fo.width = a.width;
  fo.frame_height = a.height;
  parse_minwidth(a.minwidth, &fo.min_width, &fo.min_width_percent);
  fo.font_type = a.fonttype;
  fo.font_size = a.fontsize;
  fo.font_width = a.fontwidth;
  fo.count_name = a.countname;
  fo.name_type = a.nametype;
  fo.palette = *scene::parse_palette(a.colors);
  fo.bg_colors = a.bgcolors;
  fo.hash = a.hash;
  fo.inverted = a.inverted;
  fo.flamechart = a.flamechart;
  fo.negate = a.negate;
  fo.factor = a.factor;
  fo.total = a.total;
  fo.notes = a.notes;
  fo.max_frames = a.max_frames;
  if (a.total > 0 && a.total < tree.total().value) {
    std::fprintf(stderr,
                 "hearth flame: --total %g is less than the sum of the counts; using the sum\n",
                 a.total);
  }
  flame::FlameStats st;
  scene::Scene s = flame::layout_flame(tree, fo, &st);
  tree = profile::FrameTree();  // the picture is made: its memory is the writer's now

  Result<void> written = write_picture(s, a.output, format_of(a.output), a.scale);
  if (!written) {
    std::fprintf(stderr, "hearth flame: %s\n", written.error().message.c_str());
    return 1;
  }
  if (!a.output.empty() && a.output != "-") {
    std::fprintf(stderr, "hearth flame: wrote %s: %s\n", a.output.c_str(),
                 frames_text(st, a.max_frames).c_str());
  }
  return 0;
}

}  // namespace hearth::cli
