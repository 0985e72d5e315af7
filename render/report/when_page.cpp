#include "render/report/when_page.h"

#include <string_view>

#include "common/check.h"
#include "render/page/page_text.h"
#include "templates/templates.h"

namespace hearth::report {
namespace {

void append_key(std::string* out, std::string_view key) {
  page::append_json_string(out, key);
  out->push_back(':');
}

// The page's data: {"info", "real_ns", "notes": [...], "pictures": [{name, src, title, linked}]}.
std::string page_data(const WhenOptions& o) {
  std::string d = "{";
  append_key(&d, "info");
  page::append_json_string(&d, o.info);
  d.push_back(',');
  append_key(&d, "real_ns");
  page::append_json_string(&d, std::to_string(o.real_ns));
  d.push_back(',');
  append_key(&d, "notes");
  d.push_back('[');
  for (size_t i = 0; i < o.notes.size(); ++i) {
    if (i) d.push_back(',');
    page::append_json_string(&d, o.notes[i]);
  }
  d += "],";
  append_key(&d, "pictures");
  d.push_back('[');
  for (size_t i = 0; i < o.pictures.size(); ++i) {
    const WhenPicture& p = o.pictures[i];
    if (i) d.push_back(',');
    d.push_back('{');
    append_key(&d, "name");
    page::append_json_string(&d, p.name);
    d.push_back(',');
    append_key(&d, "src");
    page::append_json_string(&d, p.src);
    d.push_back(',');
    append_key(&d, "title");
    page::append_json_string(&d, p.title);
    d.push_back(',');
    append_key(&d, "linked");
    d += p.linked ? "true" : "false";
    d.push_back('}');
  }
  d += "]}";
  return d;
}

}  // namespace

std::string when_page(const WhenOptions& o) {
  const std::string title = page::html_escape(o.title);
  return page::fill_page("when.html", {{"{{TITLE}}", title},
                                       {"{{CSS}}", templates::get("when.css")},
                                       {"{{HEADING}}", title},
                                       {"{{DATA}}", page_data(o)},
                                       {"{{SCRIPT}}", page::script_text("when.js")}});
}

WhenOptions when_options(const TimePictures& f, const std::string& target) {
  WhenOptions o;
  o.title = "When: " + target;
  o.real_ns = f.samples_real_ns;
  // A metric chart is on the axis when its series' times are CLOCK_REALTIME and the samples
  // recorded their wall clock at 0 s.
  auto on_axis = [&](bool drawn, const std::string& clock) {
    return drawn && clock == "realtime" && f.samples_real_ns != 0;
  };
  const bool metrics_linked = on_axis(f.metrics, f.metrics_clock);
  const bool alloc_linked = on_axis(f.alloc_rate, f.alloc_rate_clock);
  if (!f.heat || !(f.timeline || metrics_linked || alloc_linked)) return o;
  // The pictures whose size never changes first: a range or an instant chosen in one never
  // moves another under the pointer. The heatmap's page grows with its range's flamegraph and
  // its moment view, last.
  if (f.timeline) {
    o.pictures.push_back(
        {"timeline", "timeline.html", "Timeline: every thread's scheduler state", true});
  }
  auto chart = [&](const char* name, const char* src, const char* title, const char* words,
                   bool drawn, const std::string& clock, bool linked) {
    if (!drawn) return;
    o.pictures.push_back({name, src, title, linked});
    if (linked) return;
    o.notes.push_back(
        f.samples_real_ns == 0
            ? std::string("The ") + words +
                  " not on this time axis: the stack samples did not record their wall clock (a "
                  "raw samples file), which lines the series' times up."
            : std::string("The ") + words + " not on this time axis: the series' clock is \"" +
                  clock + "\", not CLOCK_REALTIME (recorded with --reproducible?).");
  };
  chart("metrics", "metrics.svg", "Metrics", "metric charts are", f.metrics, f.metrics_clock,
        metrics_linked);
  chart("alloc", "alloc.rate.svg", "Allocation rate", "allocation-rate chart is", f.alloc_rate,
        f.alloc_rate_clock, alloc_linked);
  o.pictures.push_back({"heat", "heat.html",
                        "Heatmap of the stack samples, its range's flamegraph, the moment view",
                        true});
  o.info = "Times in seconds since 0 s, the stack sampler's time 0";
  if (f.timeline) {
    o.info +=
        f.samples_mono_ns != 0
            ? "; the scheduler's intervals lined up on CLOCK_MONOTONIC (the samples' mono_ns)"
            : "; the samples did not record their monotonic clock: the timeline puts their 0 s "
              "at the scheduler window's start";
  }
  if (metrics_linked || alloc_linked) {
    o.info += std::string("; the ") +
              (metrics_linked && alloc_linked ? "metrics' and the allocation rate's"
               : metrics_linked               ? "metrics'"
                                              : "allocation rate's") +
              " CLOCK_REALTIME times lined up by the samples' wall clock (real_ns)";
  }
  o.info += ".";
  return o;
}

std::string when_link_html(const std::string& fragment) {
  std::string href = std::string(kWhenHtml);
  for (char c : fragment) href += c == '&' ? std::string("&amp;") : std::string(1, c);
  return std::string("<p class=\"links when\"><a href=\"") + href +
         "\"><strong>open the time view</strong></a>" +
         (fragment.empty() ? "" : " at the trigger") + ": the heatmap, the timeline and the metric "
         "charts on one time axis (a range or an instant selected in one is selected in all, "
         "with the range's flamegraph and the moment view)</p>\n";
}

}  // namespace hearth::report
