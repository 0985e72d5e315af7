#include "render/report/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "common/atomic_file.h"
#include "common/check.h"
#include "formats/sched_tsv.h"
#include "formats/series_tsv.h"
#include "formats/timed_samples.h"
#include "render/charts/charts.h"
#include "render/charts/metrics_chart.h"
#include "render/diff/diff_model.h"
#include "render/diff/diff_picture.h"
#include "render/diff/diff_report.h"
#include "render/flame/layout.h"
#include "render/profile/filters.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"
#include "render/profile/process_names.h"
#include "render/report/alloc_section.h"
#include "render/report/collector_text.h"
#include "render/report/heat_section.h"
#include "render/report/html_text.h"
#include "render/report/sampled_threads.h"
#include "render/report/threads_table.h"
#include "render/report/timeline_section.h"
#include "render/report/when_page.h"
#include "render/svg/svg_writer.h"
#include "render/svg/xml.h"
#include "templates/templates.h"

#include "common/file_io.h"
#include "common/url.h"
#include "formats/folded.h"

namespace hearth::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The sched.KIND.tsv files a report shows, in page order.
constexpr const char* kSchedKinds[] = {"states", "tenancy", "preemptors", "wakeups"};

std::string path_in(const std::string& dir, std::string_view name) {
  return (fs::path(dir) / name).string();
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

struct Section {
  std::string id, title, body;
};

struct Page {
  std::vector<Section> sections;
  std::vector<std::string> problems;
  TimePictures time;  // what the time view (when.html) can link
};

// ---- Inputs -> pictures ----

std::optional<profile::FrameTree> read_folded(const std::string& path, Page* page) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {});
  if (auto r = reader.read_file(path); !r) {
    page->problems.push_back(r.error().message);
    return std::nullopt;
  }
  tree.finalize();
  if (reader.stats().overflow_line != 0) {
    page->problems.push_back(fs::path(path).filename().string() + " line " +
                             std::to_string(reader.stats().overflow_line) +
                             ": the counts add up to more than 2^64 - 1");
    return std::nullopt;
  }
  if (!(tree.total().value > 0)) {
    page->problems.push_back(fs::path(path).filename().string() + ": no stack counts");
    return std::nullopt;
  }
  return tree;
}


// The processes' titles a recording kept (its timed samples' header; nothing for one process or
// a recording before titles were kept), and each one's label in full, by pid.
struct Titles {
  profile::ProcessTitles titles;
  std::map<int64_t, std::string> labels;
};
Titles recorded_titles(const std::string& dir) {
  Titles t;
  std::string path = path_in(dir, kStacksSamples);
  if (!exists(path)) path = path_in(dir, kStacksRaw);
  if (!exists(path)) return t;
  auto head = timed_samples::read_header(path);
  if (!head) return t;  // the heatmap's section says what is wrong with the file
  t.titles = profile::process_titles(*head);
  for (const timed_samples::Process& p : head->processes) {
    if (!p.title.empty()) t.labels[p.pid] = profile::process_label(p.name, p.title);
  }
  return t;
}

void flame_section(const RenderOptions& o, const std::string& target, Page* page,
                   RenderResult* result, std::map<std::string, ThreadRow>* threads) {
  std::string in = path_in(o.dir, kStacksFolded);
  if (!exists(in)) return;
  std::optional<profile::FrameTree> tree = read_folded(in, page);
  if (!tree) return;
  // Processes by their titles, here as in every picture of the report (stacks.folded keeps the
  // roots as recorded).
  const Titles titles = recorded_titles(o.dir);
  profile::title_process_roots(&*tree, titles.titles);
  for (SampledThread& t : sampled_threads(*tree)) {
    // The flamegraph cuts a root to its frame's width; the table and the charts to 40 characters.
    if (auto l = titles.labels.find(t.pid); l != titles.labels.end()) {
      const std::string label = profile::shorten(l->second, profile::kProcessLabelChars);
      if (t.name == t.process) t.name = label;  // a single-threaded process's one thread
      t.process = label;
      (*threads)[thread_key(t.tid, t.name)].process_title = l->second;
    }
    ThreadRow& row = (*threads)[thread_key(t.tid, t.name)];
    row.name = std::move(t.name);
    row.tid = t.tid;
    row.root = std::move(t.root);
    row.samples += t.samples;
    row.process = std::move(t.process);
    row.pid = t.pid;
  }
  flame::FlameOptions fo;
  fo.title = "Stacks: " + target;
  fo.subtitle = "every thread, sleeping ones included: width = share of samples";
  fo.width = o.width;
  flame::FlameStats st;
  scene::Scene s = flame::layout_flame(*tree, fo, &st);
  if (auto w = svg::write_svg(s, path_in(o.dir, kFlameSvg)); !w) {
    page->problems.push_back(w.error().message);
    return;
  }
  result->pictures.push_back(kFlameSvg);
  std::string body = picture(kFlameSvg, "flamegraph");
  body += "<p class=\"links\"><a href=\"" + std::string(kFlameSvg) +
          "\">open the flamegraph</a> · <a href=\"" + std::string(kStacksFolded) +
          "\">folded stacks</a>";
  if (exists(path_in(o.dir, kStacksSamples)))
    body += " · <a href=\"" + std::string(kStacksSamples) + "\">every sample</a>";
  else if (exists(path_in(o.dir, kStacksRaw)))
    body += " · <a href=\"" + std::string(kStacksRaw) + "\">every sample</a>";
  body += " · " + std::to_string(st.frames) + " frames, " + fixed(tree->total().value, 0) +
          " stacks</p>\n";
  page->sections.push_back({"stacks", "Stacks", body});
}

// `hearth record --alloc`'s allocation flamegraphs, beside the stacks'.
void alloc_mem_section(const RenderOptions& o, const std::string& target, const json& meta,
                       Page* page, RenderResult* result) {
  json figures = json::object();
  if (auto cs = meta.find("collectors"); cs != meta.end() && cs->is_object()) {
    if (auto a = cs->find("alloc"); a != cs->end() && a->is_object()) figures = *a;
  }
  AllocSection m = alloc_section(o.dir, target, o.width, figures);
  page->time.alloc_rate = m.rate;
  page->time.alloc_rate_clock = m.rate_clock;
  for (std::string& p : m.problems) page->problems.push_back(std::move(p));
  for (std::string& f : m.pictures) result->pictures.push_back(std::move(f));
  if (!m.body.empty())
    page->sections.push_back({"mem", "Memory: where the bytes are allocated", m.body});
}

void when_section(const RenderOptions& o, const std::string& target, Page* page,
                  RenderResult* result) {
  HeatSection h = heat_section(o.dir, target, o.width);
  const bool heat = std::find(h.pictures.begin(), h.pictures.end(), kHeatHtml) != h.pictures.end();
  page->time.heat = heat;
  page->time.samples_mono_ns = h.mono_ns;
  page->time.samples_real_ns = h.real_ns;
  for (std::string& p : h.problems) page->problems.push_back(std::move(p));
  for (std::string& f : h.pictures) result->pictures.push_back(std::move(f));
  if (!h.body.empty())
    page->sections.push_back({"when", "When: heatmap of the stack samples", h.body});
  TimelineSection t = timeline_section(o.dir, target, o.width, heat ? kHeatHtml : "");
  page->time.timeline =
      std::find(t.pictures.begin(), t.pictures.end(), kTimelineHtml) != t.pictures.end();
  for (std::string& p : t.problems) page->problems.push_back(std::move(p));
  for (std::string& f : t.pictures) result->pictures.push_back(std::move(f));
  if (!t.body.empty()) {
    page->sections.push_back({"timeline", "Timeline: every thread's scheduler state", t.body});
  }
}

// The time view (when.html) over the pictures written above, linked from the heatmap's section.
void when_page_section(const RenderOptions& o, const std::string& target, const std::string& at,
                       Page* page, RenderResult* result) {
  const WhenOptions w = when_options(page->time, target);
  if (w.pictures.empty()) return;
  if (auto r = write_file_atomically(path_in(o.dir, kWhenHtml), when_page(w)); !r) {
    page->problems.push_back(r.error().message);
    return;
  }
  result->pictures.push_back(kWhenHtml);
  for (Section& s : page->sections) {
    if (s.id == "when") s.body = when_link_html(at) + s.body;
  }
}

void sched_section(const RenderOptions& o, charts::StoppedBy by, Page* page, RenderResult* result,
                   std::map<std::string, ThreadRow>* threads) {
  std::vector<sched_tsv::SchedFile> files;
  std::vector<std::string> names;
  for (const char* kind : kSchedKinds) {
    std::string name = std::string("sched.") + kind + ".tsv";
    std::string path = path_in(o.dir, name);
    if (!exists(path)) continue;
    auto f = sched_tsv::read_sched_tsv(path);
    if (!f) {
      page->problems.push_back(f.error().message);
      continue;
    }
    files.push_back(std::move(*f));
    names.push_back(name);
  }
  if (files.empty()) return;
  // Several processes sampled: the processes by pid, for the threads only the scheduler saw.
  std::map<int64_t, std::string> processes;
  for (const auto& [key, row] : *threads) {
    if (row.pid >= 0) processes.emplace(row.pid, row.process);
  }
  for (const sched_tsv::SchedFile& f : files) {
    for (const sched_tsv::ThreadStates& t : f.states) {
      ThreadRow& row = (*threads)[thread_key(t.tid, t.comm)];
      if (row.name.empty()) row.name = t.comm;
      row.tid = t.tid;
      row.sched = t;
      row.sched_version = f.header.version;
      if (row.pid < 0 && !processes.empty() && t.pid > 0) {
        row.pid = t.pid;
        auto p = processes.find(t.pid);
        row.process = p != processes.end() ? p->second : std::string();
      }
    }
  }
  charts::ChartOptions co;
  co.width = o.width;
  co.stopped_by = by;
  // The stack sampler's names for the threads it sampled (roles of unnamed threads): the same
  // names as the flamegraph and the threads table. A scheduler recording alone keeps comm.
  // Several processes: the names say their process.
  for (const auto& [key, row] : *threads) {
    if (row.tid < 0) continue;
    if (!row.root.empty()) {
      co.thread_names[row.tid] = chart_name({.name = row.name,
                                             .tid = row.tid,
                                             .root = row.root,
                                             .samples = row.samples,
                                             .process = row.process,
                                             .pid = row.pid});
    } else if (row.pid >= 0 && row.pid != row.tid && !row.process.empty()) {
      co.thread_names[row.tid] = chart_name(row.process, row.pid, row.name);
    }
  }
  charts::ChartStats st;
  scene::Scene s = charts::layout_charts(files, co, &st);
  if (st.sections == 0) return;
  if (auto w = svg::write_svg(s, path_in(o.dir, kSchedSvg)); !w) {
    page->problems.push_back(w.error().message);
    return;
  }
  result->pictures.push_back(kSchedSvg);
  std::string body = picture(kSchedSvg, "scheduler charts");
  body += "<p class=\"links\"><a href=\"" + std::string(kSchedSvg) + "\">open the charts</a>";
  for (const std::string& n : names) body += " · <a href=\"" + esc(n) + "\">" + esc(n) + "</a>";
  if (exists(path_in(o.dir, "sched.cpu.tsv")))
    body += " · <a href=\"sched.cpu.tsv\">sched.cpu.tsv</a>";
  if (exists(path_in(o.dir, "sched.ftrace.txt")))
    body += " · <a href=\"sched.ftrace.txt\">ftrace text (opens in Perfetto)</a>";
  body += "</p>\n";
  page->sections.push_back({"sched", "Scheduler: thread states, CPU tenancy, preemptors", body});
}

void metrics_section(const RenderOptions& o, Page* page, RenderResult* result) {
  std::string in = path_in(o.dir, kMmvSeries);
  if (!exists(in)) return;
  auto file = series::read_series_tsv(in);
  std::string body;
  if (!file) {
    page->problems.push_back(file.error().message);
  } else {
    page->time.metrics_clock = file->clock;
    std::vector<series::SeriesFile> files;
    files.push_back(std::move(*file));
    charts::MetricsOptions mo;
    mo.width = o.width;
    charts::MetricsStats st;
    scene::Scene s = charts::layout_metrics(files, mo, &st);
    if (auto w = svg::write_svg(s, path_in(o.dir, kMetricsSvg)); !w) {
      page->problems.push_back(w.error().message);
    } else {
      result->pictures.push_back(kMetricsSvg);
      page->time.metrics = true;
      body += picture(kMetricsSvg, "metric charts");
    }
  }
  body += "<p class=\"links\">";
  if (exists(path_in(o.dir, kMetricsSvg)))
    body += "<a href=\"" + std::string(kMetricsSvg) + "\">open the charts</a> · ";
  body +=
      "<a href=\"" + std::string(kMmvSeries) + "\">metric series (MMV, tab-separated)</a></p>\n";
  page->sections.push_back({"metrics", "Metrics", body});
}

void diff_section(const RenderOptions& o, Page* page, RenderResult* result) {
  if (o.baseline_dir.empty()) return;
  std::string base_path = path_in(o.baseline_dir, kStacksFolded);
  std::string new_path = path_in(o.dir, kStacksFolded);
  if (!exists(base_path)) {
    page->problems.push_back("baseline " + o.baseline_dir + ": no " + kStacksFolded);
    return;
  }
  if (!exists(new_path)) return;
  auto base = read_folded(base_path, page);
  auto next = read_folded(new_path, page);
  if (!base || !next) return;
  diff::DiffModel m = diff::build_diff(*base, *next, {});
  diff::PictureOptions po;
  po.base_name = "baseline";
  po.new_name = "this report";
  po.title = "Compared with the baseline";
  po.width = o.width;
  scene::Scene s = diff::layout_diff(m, po, nullptr);
  if (auto w = svg::write_svg(s, path_in(o.dir, kDiffSvg)); !w) {
    page->problems.push_back(w.error().message);
    return;
  }
  result->pictures.push_back(kDiffSvg);
  diff::ReportOptions ro;
  ro.base_name = "baseline";
  ro.new_name = "this report";
  if (auto w = write_file_atomically(path_in(o.dir, kDiffMarkdown), diff::summary_markdown(m, ro));
      !w) {
    page->problems.push_back(w.error().message);
  }
  std::string body = "<pre class=\"summary\">" + esc(diff::summary_text(m, ro)) + "</pre>\n";
  body += picture(kDiffSvg, "differential flamegraph");
  body += "<p class=\"links\"><a href=\"" + std::string(kDiffSvg) +
          "\">open the differential flamegraph</a> · <a href=\"" + std::string(kDiffMarkdown) +
          "\">summary (Markdown)</a></p>\n";
  page->sections.push_back({"diff", "Compared with the baseline", body});
}

void threads_section(const std::map<std::string, ThreadRow>& threads, const std::string& window,
                     charts::StoppedBy by, Page* page, RenderResult* result) {
  if (threads.empty()) return;
  // Rows of the scheduler charts are link targets (render/charts: "thread-TID").
  const bool sched_chart = std::find(result->pictures.begin(), result->pictures.end(),
                                     std::string(kSchedSvg)) != result->pictures.end();
  page->sections.push_back({"threads", "Threads", threads_table(threads, window, by, sched_chart)});
  result->threads = threads.size();
}

// ---- report.json -> summary ----

std::string json_scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    return std::fabs(d) >= 100 ? fixed(d, 0) : fixed(d, 3);
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return v.dump();
}

std::string get_string(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null() ? json_scalar(*it) : std::string();
}

// `hearth watch`'s report opens the time view at its trigger: "#at=T&t=FROM,TO" (the instant,
// and the range from a minute before it to the samples' end at most a minute after); "" for
// any other report.
std::string trigger_fragment(const json& meta) {
  auto t = meta.find("trigger");
  if (t == meta.end() || !t->is_object()) return "";
  auto at_s = t->find("at_s");
  if (at_s == t->end() || !at_s->is_number()) return "";
  const double at = at_s->get<double>();
  if (!std::isfinite(at) || at < 0) return "";
  return "#at=" + fixed(at, 3) + "&t=" + fixed(std::max(0.0, at - 60), 3) + "," + fixed(at + 60, 3);
}

std::string summary_html(const json& meta, std::string* title, std::string* window) {
  std::string target = "?";
  if (auto t = meta.find("target"); t != meta.end() && t->is_object()) {
    std::string comm = get_string(*t, "comm"), pid = get_string(*t, "pid");
    target = comm.empty() ? "pid " + pid : comm + " (pid " + pid + ")";
    // A set of processes (several -p, --children, --comm): the others counted.
    if (auto ps = t->find("processes"); ps != t->end() && ps->is_array() && ps->size() > 1) {
      const size_t more = ps->size() - 1;
      target +=
          " and " + std::to_string(more) + (more == 1 ? " other process" : " other processes");
    }
  }
  *title = "hearth report: " + target;
  std::string h = "<table class=\"meta\">\n";
  auto row = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) h += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  };
  row("target", target);
  if (auto t = meta.find("target"); t != meta.end() && t->is_object())
    row("command line", get_string(*t, "cmdline"));
  row("host", get_string(meta, "host"));
  row("kernel", get_string(meta, "kernel"));
  row("started", get_string(meta, "started"));
  // `hearth watch`'s report: the rule that fired, its value, when.
  if (auto t = meta.find("trigger"); t != meta.end() && t->is_object()) {
    std::string v = get_string(*t, "text");
    if (auto value = t->find("value"); value != t->end() && value->is_number()) {
      char was[48];
      std::snprintf(was, sizeof was, " (was %.4g)", value->get<double>());
      v += was;
    }
    if (std::string at = get_string(*t, "at"); !at.empty()) v += " at " + at;
    if (auto at_s = t->find("at_s"); at_s != t->end() && at_s->is_number())
      v += ", " + fixed(at_s->get<double>(), 1) + " s into the samples";
    row("rule fired", v);
  }
  if (auto w = meta.find("window_s"); w != meta.end() && w->is_number()) {
    *window = fixed(w->get<double>(), 1) + " s";
    std::string v = *window;
    if (meta.value("interrupted", false)) v += " (ended early by Ctrl-C)";
    row("window", v);
  }
  if (auto c = meta.find("sampling_cost"); c != meta.end() && c->is_object()) {
    SamplingCost cost;
    auto number = [&c](const char* key) {
      auto v = c->find(key);
      return v != c->end() && v->is_number() ? v->get<double>() : 0.0;
    };
    auto count = [&number](const char* key) {
      double v = number(key);
      return v > 0 ? static_cast<uint64_t>(v) : uint64_t{0};
    };
    cost.window_pct = number("window_pct");
    cost.stop_median_us = number("stop_median_us");
    cost.threads = count("threads");
    cost.stopped_threads = count("stopped_threads");
    cost.stops = count("stops");
    row("sampling cost", sampling_cost_text(cost));
  }
  if (auto c = meta.find("command"); c != meta.end() && c->is_array()) {
    std::string line;
    for (const json& a : *c) line += (line.empty() ? "" : " ") + json_scalar(a);
    row("recorded with", line);
  }
  row("hearth", get_string(meta, "hearth_version"));
  h += "</table>\n";
  if (auto cs = meta.find("collectors"); cs != meta.end() && cs->is_object()) {
    h += "<table class=\"collectors\"><thead><tr><th>collector</th><th>status</th>"
         "<th>figures</th></tr></thead><tbody>\n";
    for (const char* name : {"stacks", "sched", "mmv", "alloc"}) {
      auto c = cs->find(name);
      if (c == cs->end() || !c->is_object()) continue;
      std::string status = get_string(*c, "status");
      h += "<tr class=\"" + esc(status) + "\"><td>" + esc(name) + "</td><td>" + esc(status);
      std::string message = get_string(*c, "message");
      if (!message.empty()) h += ": " + esc(message);
      h += "</td><td>";
      h += esc(collector_text(name, *c)) + "</td></tr>\n";
    }
    h += "</tbody></table>\n";
  }
  return h;
}

// The stopped state is hearth's own doing when its stack sampler ran over the window.
charts::StoppedBy stopped_by(const json& meta) {
  auto cs = meta.find("collectors");
  if (cs == meta.end() || !cs->is_object()) return charts::StoppedBy::kTracer;
  auto st = cs->find("stacks");
  if (st == cs->end() || !st->is_object()) return charts::StoppedBy::kTracer;
  return get_string(*st, "status") == "ok" ? charts::StoppedBy::kHearth
                                           : charts::StoppedBy::kTracer;
}

// "0.031%": two significant digits below 10%, and never a bare 0 for a share above 0.
std::string percent(double pct) {
  if (!(pct > 0)) return "0%";
  if (pct < 0.001) return "<0.001%";
  char buf[32];
  std::snprintf(buf, sizeof buf, pct < 10 ? "%.2g%%" : "%.0f%%", pct);
  return buf;
}

}  // namespace

std::string sampling_cost_text(const SamplingCost& c) {
  std::string threads = std::to_string(c.threads) + (c.threads == 1 ? " thread" : " threads");
  if (c.stops == 0 && !(c.window_pct > 0)) {
    return "0% of the window: no thread was stopped (scheduler's view, " + threads + ")";
  }
  std::string median = c.stop_median_us >= 1 ? fixed(c.stop_median_us, 0) + " \xc2\xb5s"
                                             : std::string("<1 \xc2\xb5s");
  return percent(c.window_pct) + " of the window, median " + median +
         " per thread per sample (scheduler's view: " + std::to_string(c.stopped_threads) + " of " +
         threads + " stopped, " + std::to_string(c.stops) + (c.stops == 1 ? " stop)" : " stops)");
}

std::string regex_literal(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> recorded_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* name : {kStacksFolded, kStacksRaw, kStacksSamples, kMmvSeries, kReportJson,
                           kAllocFolded, kAllocCountFolded, kAllocLiveFolded, kAllocRateSeries}) {
    files.push_back(path_in(dir, name));
  }
  for (const char* kind : kSchedKinds) {
    files.push_back(path_in(dir, std::string("sched.") + kind + ".tsv"));
  }
  for (const char* name : {"sched.intervals.tsv", "sched.slots.tsv"}) {
    files.push_back(path_in(dir, name));
  }
  return files;
}

std::vector<std::string> rendered_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* name : {kIndexHtml, kFlameSvg, kHeatHtml, kHeatSvg, kTimelineHtml, kTimelineSvg,
                           kWhenHtml, kSchedSvg, kMetricsSvg, kDiffSvg, kDiffMarkdown, kAllocSvg,
                           kAllocCountSvg, kAllocLiveSvg, kAllocRateSvg}) {
    files.push_back(path_in(dir, name));
  }
  return files;
}

std::string index_path(const std::string& dir) {
  return (fs::path(dir) / kIndexHtml).lexically_normal().string();
}

std::map<int64_t, std::string> sampled_thread_names(const std::string& dir) {
  std::map<int64_t, std::string> names;
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {});
  if (!reader.read_file(path_in(dir, kStacksFolded))) return names;
  tree.finalize();
  for (const SampledThread& t : sampled_threads(tree)) {
    if (t.tid >= 0) names.emplace(t.tid, chart_name(t));
  }
  return names;
}

Result<RenderResult> render_report(const RenderOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) return fail(o.dir + ": not a directory");
  RenderResult result;
  Page page;

  json meta = json::object();
  std::string meta_path = path_in(o.dir, kReportJson);
  if (exists(meta_path)) {
    json parsed = json::parse(read_file(meta_path).value_or(std::string()), nullptr,
                              /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      page.problems.push_back(std::string(kReportJson) + ": not a JSON object; summary left out");
    } else {
      meta = std::move(parsed);
    }
  }
  std::string title, window;
  std::string summary = summary_html(meta, &title, &window);
  if (meta.empty()) title = "hearth report: " + fs::path(o.dir).filename().string();
  std::string target = title.substr(std::string("hearth report: ").size());

  std::map<std::string, ThreadRow> threads;
  diff_section(o, &page, &result);
  const charts::StoppedBy by = stopped_by(meta);
  flame_section(o, target, &page, &result, &threads);
  alloc_mem_section(o, target, meta, &page, &result);
  when_section(o, target, &page, &result);
  sched_section(o, by, &page, &result, &threads);
  metrics_section(o, &page, &result);
  when_page_section(o, target, trigger_fragment(meta), &page, &result);
  threads_section(threads, window, by, &page, &result);
  // The comparison is what a reader with a baseline came for: first, after the summary.

  std::string nav, content;
  for (const Section& s : page.sections) {
    nav += "<a href=\"#" + s.id + "\">" + esc(s.title.substr(0, s.title.find(':'))) + "</a>\n";
    content +=
        "<section id=\"" + s.id + "\"><h2>" + esc(s.title) + "</h2>\n" + s.body + "</section>\n";
  }
  if (page.sections.empty()) {
    content +=
        "<p class=\"note\">Nothing to show: no stacks.folded, stack samples, sched.*.tsv, "
        "mmv.tsv or alloc.folded in "
        "this directory.</p>\n";
  }
  std::string problems;
  for (const std::string& p : page.problems) problems += "<li>" + esc(p) + "</li>\n";
  if (!problems.empty()) problems = "<ul class=\"problems\">\n" + problems + "</ul>\n";

  std::string html(templates::get("report.html"));
  auto fill = [&html](std::string_view key, const std::string& value) {
    size_t at = html.find(key);
    HEARTH_CHECK(at != std::string::npos);
    html.replace(at, key.size(), value);
  };
  fill("{{CSS}}", std::string(templates::get("report.css")));
  fill("{{TITLE}}", esc(title));
  fill("{{HEADING}}", esc(title));
  fill("{{SUMMARY}}", summary);
  fill("{{PROBLEMS}}", problems);
  fill("{{NAV}}", nav);
  fill("{{CONTENT}}", content);
  RETURN_IF_ERROR(write_file_atomically(path_in(o.dir, kIndexHtml), html));
  result.problems = std::move(page.problems);
  return result;
}

}  // namespace hearth::report
