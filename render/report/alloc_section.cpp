#include "render/report/alloc_section.h"

#include <cstdio>
#include <filesystem>

#include "formats/series_tsv.h"
#include "render/charts/metrics_chart.h"
#include "render/flame/layout.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"
#include "render/report/html_text.h"
#include "render/report/report.h"
#include "render/svg/svg_writer.h"

namespace hearth::report {
namespace {

namespace fs = std::filesystem;

struct AllocView {
  const char* folded;
  const char* svg;
  const char* title;       // the picture's, before ": TARGET"
  const char* count_name;  // what a width counts
  const char* words;       // the links' name for the folded file
};

constexpr AllocView kAllocViews[] = {
    {kAllocFolded, kAllocSvg, "Allocated bytes", "bytes", "folded stacks (bytes)"},
    {kAllocCountFolded, kAllocCountSvg, "Allocator calls", "calls", "folded stacks (calls)"},
    {kAllocLiveFolded, kAllocLiveSvg, "Live heap at the window's end", "bytes",
     "folded stacks (live bytes)"},
};

uint64_t figure(const nlohmann::json& f, const char* key) {
  auto it = f.find(key);
  return it != f.end() && it->is_number() && it->get<double>() > 0 ? it->get<uint64_t>() : 0;
}

// "1,234,567".
std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string kib(uint64_t bytes) {
  return bytes >= 1024 && bytes % 1024 == 0 ? grouped(bytes / 1024) + " KiB"
                                            : grouped(bytes) + " B";
}

// What was sampled, lost and (live view) dropped, one line.
std::string sampled_line(const nlohmann::json& f, bool live) {
  if (!f.is_object() || f.empty()) return "sampled allocations, weighted back to bytes";
  std::string s = grouped(figure(f, "samples")) + " samples of " + grouped(figure(f, "calls")) +
                  " calls (" + grouped(figure(f, "lost")) + " lost), one per " +
                  kib(figure(f, "mean_bytes")) + " on average";
  if (live) {
    s += "; live: " + grouped(figure(f, "live_blocks")) + " sampled blocks (" +
         grouped(figure(f, "freed")) + " freed, " + grouped(figure(f, "dropped")) +
         " dropped: map full)";
  }
  return s;
}

// alloc.rate.tsv as a metric chart (alloc.rate.svg): calls and bytes per second.
void rate_chart(const std::string& dir, const std::string& target, double width,
                AllocSection* out) {
  const std::string in = (fs::path(dir) / kAllocRateSeries).string();
  std::error_code ec;
  if (!fs::is_regular_file(in, ec)) return;
  auto file = series::read_series_tsv(in);
  if (!file) {
    out->problems.push_back(file.error().message);
    return;
  }
  out->rate_clock = file->clock;
  std::vector<series::SeriesFile> files;
  files.push_back(std::move(*file));
  charts::MetricsOptions mo;
  mo.title = "Allocation rate: " + target;
  mo.width = width;
  charts::MetricsStats st;
  scene::Scene s = charts::layout_metrics(files, mo, &st);
  if (auto w = svg::write_svg(s, (fs::path(dir) / kAllocRateSvg).string()); !w) {
    out->problems.push_back(w.error().message);
    return;
  }
  out->rate = true;
  out->pictures.push_back(kAllocRateSvg);
  out->body += picture(kAllocRateSvg, "Allocation rate");
  out->body += "<p class=\"links\"><a href=\"" + esc(kAllocRateSvg) +
               "\">open the chart</a> · <a href=\"" + esc(kAllocRateSeries) +
               "\">allocation rate (every call counted, tab-separated)</a></p>\n";
}

}  // namespace

AllocSection alloc_section(const std::string& dir, const std::string& target, double width,
                           const nlohmann::json& figures) {
  AllocSection out;
  for (const AllocView& v : kAllocViews) {
    const std::string in = (fs::path(dir) / v.folded).string();
    std::error_code ec;
    if (!fs::is_regular_file(in, ec)) continue;
    profile::FrameTree tree;
    profile::FoldedReader reader(tree, {});
    if (auto r = reader.read_file(in); !r) {
      out.problems.push_back(r.error().message);
      continue;
    }
    tree.finalize();
    if (reader.stats().overflow_line != 0 || !(tree.total().value > 0)) {
      out.problems.push_back(std::string(v.folded) + ": no allocation counts");
      continue;
    }
    const bool live = v.folded == std::string(kAllocLiveFolded);
    flame::FlameOptions fo;
    fo.title = std::string(v.title) + ": " + target;
    fo.subtitle = sampled_line(figures, live);
    fo.count_name = v.count_name;
    fo.palette = scene::Palette::kMem;
    fo.width = width;
    flame::FlameStats st;
    scene::Scene s = flame::layout_flame(tree, fo, &st);
    const std::string svg = (fs::path(dir) / v.svg).string();
    if (auto w = svg::write_svg(s, svg); !w) {
      out.problems.push_back(w.error().message);
      continue;
    }
    out.pictures.push_back(v.svg);
    out.body += picture(v.svg, v.title);
    out.body += "<p class=\"links\"><a href=\"" + esc(v.svg) +
                "\">open the flamegraph</a> · <a href=\"" + esc(v.folded) + "\">" + esc(v.words) +
                "</a> · " + std::to_string(st.frames) + " frames, " +
                grouped(static_cast<uint64_t>(tree.total().value)) + " " + v.count_name + "</p>\n";
  }
  rate_chart(dir, target, width, &out);
  // A view asked for that has no file: nothing sampled, or (live) every sampled block freed.
  std::string views;
  if (auto v = figures.find("views"); figures.is_object() && v != figures.end() && v->is_string())
    views = v->get<std::string>();
  if (!views.empty() && figure(figures, "samples") == 0) {
    out.body += "<p class=\"note\">No allocation sampled in the window (" +
                grouped(figure(figures, "calls")) + " allocator calls, one sample per " +
                kib(figure(figures, "mean_bytes")) +
                " on average): a longer window or a smaller --alloc-mean samples more.</p>\n";
  } else if (views.find("live") != std::string::npos &&
             !fs::is_regular_file(fs::path(dir) / kAllocLiveFolded)) {
    out.body +=
        "<p class=\"note\">Live heap: no sampled block was still allocated at the "
        "window's end (" +
        grouped(figure(figures, "freed")) + " freed in the window).</p>\n";
  }
  return out;
}

}  // namespace hearth::report
