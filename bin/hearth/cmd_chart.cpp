#include "bin/hearth/cmd_chart.h"

#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/output_guard.h"
#include "formats/sched_tsv.h"
#include "formats/series_tsv.h"
#include "render/cairo/cairo_writer.h"
#include "render/charts/charts.h"
#include "render/charts/metrics_chart.h"
#include "render/report/report.h"
#include "render/svg/svg_writer.h"

namespace hearth::cli {
namespace {

// A directory means every sched.KIND.tsv in it of a KIND this hearth reads, by name (other
// sched.*.tsv files, newer kinds such as sched.cpu.tsv, are noted and left out), and the MMV
// series `mmv.tsv` and `*.mmv.tsv`. Problems are appended to *PROBLEMS.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       std::vector<std::string>* problems) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(in, ec)) {
      std::string name = e.path().filename().string();
      if (name == "mmv.tsv" || name.ends_with(".mmv.tsv")) {
        found.push_back(e.path().string());
        continue;
      }
      if (!name.starts_with("sched.") || !name.ends_with(".tsv")) continue;
      std::string kind = name.substr(6, name.size() - 10);
      if (sched_tsv::parse_kind(kind)) {
        found.push_back(e.path().string());
      } else if (kind == "intervals" || kind == "slots") {
        continue;  // the scheduler's intervals: for the time views, not charts; always there
      } else {
        std::fprintf(stderr, "hearth chart: %s: no chart reads sched.%s files; skipped\n",
                     e.path().c_str(), kind.c_str());
      }
    }
    if (ec) {
      problems->push_back("cannot list " + in + ": " + ec.message());
    } else if (found.empty()) {
      problems->push_back(in + ": no sched.*.tsv or mmv.tsv files in this directory (record with " +
                          "`hearth sched -p PID -o " + in + "` or `hearth mmv -o " + in +
                          "/mmv.tsv`)");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Whether the file at PATH starts with the MMV series' first line (else it is read as a sched
// file, whose reader gives the errors).
bool is_series_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  return series::looks_like_series(std::string_view(head, static_cast<size_t>(in.gcount())));
}

}  // namespace

std::vector<std::string> validate_chart(const ChartArgs& a) {
  std::vector<std::string> problems;
  if (a.inputs.empty()) {
    problems.push_back(
        "no input: give sched.*.tsv files, the directory `hearth sched` wrote, or an MMV series");
  }
  if (!charts::parse_sort_key(a.sort)) {
    problems.push_back("--sort " + a.sort + ": use one of " + std::string(charts::kSortKeyNames));
  }
  if (!(a.width >= 300 && a.width <= 100000)) {
    problems.push_back("--width must be between 300 and 100000");
  }
  if (!(a.scale > 0 && a.scale <= 8)) problems.push_back("--scale must be above 0 and at most 8");
  filter_pattern("--metrics", a.metrics, &problems);
  if (a.max_panels < 1 || a.max_panels > 1000) {
    problems.push_back("--max-panels must be between 1 and 1000");
  }
  if (format_of(a.output) == OutFormat::kUnknown) {
    problems.push_back("-o " + a.output + ": the output must end in .svg, .png or .pdf");
  }
  return problems;
}

int run_chart(const ChartArgs& a) {
  std::vector<std::string> problems = validate_chart(a);
  if (a.output.empty() && isatty(STDOUT_FILENO)) {
    problems.push_back("no output: give -o OUT.svg (or .png, .pdf)");
  }
  std::vector<std::string> paths = expand_inputs(a.inputs, &problems);
  // Before any input is read: the other problems are reported with it.
  if (auto r = check_outputs(paths, {a.output.empty() ? "-" : a.output}); !r) {
    problems.push_back(r.error().message);
    for (const std::string& p : problems) std::fprintf(stderr, "hearth chart: %s\n", p.c_str());
    return 2;
  }
  std::vector<sched_tsv::SchedFile> files;
  std::vector<series::SeriesFile> mmv_files;
  for (const std::string& p : paths) {
    if (is_series_file(p)) {
      Result<series::SeriesFile> f = series::read_series_tsv(p);
      if (f) {
        mmv_files.push_back(std::move(*f));
      } else {
        problems.push_back(f.error().message);
      }
      continue;
    }
    Result<sched_tsv::SchedFile> f = sched_tsv::read_sched_tsv(p);
    if (f) {
      files.push_back(std::move(*f));
    } else {
      problems.push_back(f.error().message);
    }
  }
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth chart: %s\n", p.c_str());
    return 2;
  }

  charts::ChartOptions o;
  // A report directory: the threads keep the names the stack sampler gave them (roles).
  for (const std::string& in : a.inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) continue;
    for (auto& [tid, name] : report::sampled_thread_names(in)) o.thread_names.emplace(tid, name);
  }
  o.title = a.title;
  o.width = a.width;
  o.sort = *charts::parse_sort_key(a.sort);
  o.group_threads = a.group_threads;
  charts::ChartStats st;
  charts::MetricsStats mst;
  charts::MetricsOptions mo;
  mo.title = a.title;
  mo.width = a.width;
  std::vector<std::string> validated;  // stays empty: validate_chart compiled it already
  mo.panels.metrics = filter_pattern("--metrics", a.metrics, &validated);
  mo.panels.max_panels = a.max_panels;
  scene::Scene s;
  if (files.empty() && !mmv_files.empty()) {
    s = charts::layout_metrics(mmv_files, mo, &mst);
  } else {
    s = charts::layout_charts(files, o, &st);
    if (!mmv_files.empty()) {  // below the scheduler charts, as one more section
      double y = s.height;
      draw_metrics(charts::build_panels(mmv_files, mo.panels), charts::metrics_title(mmv_files),
                   static_cast<int>(st.sections), &s, &y, &mst);
      s.kind = "chart metrics";
      s.data = {{"sections", std::to_string(st.sections + 1)}};
      s.height = std::ceil(y);
    }
  }
  for (const std::string& f : st.skipped) {
    std::fprintf(stderr,
                 "hearth chart: %s: wakeups only annotate the states chart of their recording, "
                 "and there is none; skipped\n",
                 f.c_str());
  }
  if (st.sections == 0 && mmv_files.empty()) {
    std::fprintf(stderr,
                 "hearth chart: nothing to chart: give sched.states.tsv, sched.tenancy.tsv or "
                 "sched.preemptors.tsv, or an MMV series from `hearth mmv`\n");
    return 2;
  }

  Result<void> written = write_picture(s, a.output, format_of(a.output), a.scale);
  if (!written) {
    std::fprintf(stderr, "hearth chart: %s\n", written.error().message.c_str());
    return 1;
  }
  if (!a.output.empty() && a.output != "-") {
    std::string what;
    if (st.sections > 0) {
      what = std::to_string(st.sections) + " charts, " + std::to_string(st.bars) + " bars";
    }
    if (!mmv_files.empty()) {
      if (!what.empty()) what += "; ";
      what += std::to_string(mst.panels) + " metric panels";
      if (mst.metrics > mst.panels) {
        what += " of " + std::to_string(mst.metrics) + " metrics (--metrics, --max-panels)";
      }
    }
    std::fprintf(stderr, "hearth chart: wrote %s: %s\n", a.output.c_str(), what.c_str());
  }
  return 0;
}

}  // namespace hearth::cli
