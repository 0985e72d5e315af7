// The report's time view, when.html: the report's time pictures (the heatmap page heat.html, the
// timeline page timeline.html, the metric charts metrics.svg) framed in one page on one time
// axis: a range selected in any of them is the range in all, an instant clicked in any of them
// the moment view's instant, marked in all; the state kept in the address (#t=FROM,TO&at=T,
// seconds since the samples' time 0). The page (templates/when.*) only relays: each picture
// draws itself and speaks templates/time_link.js. No server logic: file:// works, and
// `hearth serve` serves it as a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::report {

inline constexpr const char* kWhenHtml = "when.html";

struct WhenPicture {
  std::string name;    // "heat", "timeline", "metrics" or "alloc" (a metric chart too): the page
                       // sizes each kind its way
  std::string src;     // file name in the report directory
  std::string title;   // the heading above it
  bool linked = true;  // on the time axis (false: shown, but not linked)
};

struct WhenOptions {
  std::string title;
  std::string info;      // what 0 s is, the clocks lined up
  uint64_t real_ns = 0;  // the samples' wall clock at 0 s (CLOCK_REALTIME ns); 0: unknown
  std::vector<WhenPicture> pictures;  // in page order
  std::vector<std::string> notes;     // why a picture is not linked, ...
};

// The page's HTML.
std::string when_page(const WhenOptions& options);

// What a report directory offers the time view, as render_report found it.
struct TimePictures {
  bool heat = false;             // heat.html written
  bool timeline = false;         // timeline.html written
  bool metrics = false;          // metrics.svg written
  std::string metrics_clock;     // its series' clock ("realtime", "relative", ...)
  bool alloc_rate = false;       // alloc.rate.svg written (the allocation rate, a metric chart)
  std::string alloc_rate_clock;  // its series' clock
  uint64_t samples_real_ns = 0;  // the samples' wall clock at their time 0; 0: not recorded
  uint64_t samples_mono_ns = 0;  // the same instant on CLOCK_MONOTONIC; 0: not recorded
};

// The time view's options for a report directory's pictures; no pictures when there is nothing
// to link: the view needs the heatmap and one more time picture on its axis.
WhenOptions when_options(const TimePictures& found, const std::string& target);

// The index page's paragraph linking to the time view; FRAGMENT ("#at=…&t=…", or "") the state
// it opens at.
std::string when_link_html(const std::string& fragment = "");

}  // namespace hearth::report
