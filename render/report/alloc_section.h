// The report's allocation section ("Memory: where the bytes are allocated"): the folded stacks
// `hearth record --alloc` wrote (alloc.folded, alloc.count.folded, alloc.live.folded; each only
// when its view was asked for and sampled something) drawn as flamegraphs in the "mem" palette,
// widths in bytes (or calls), with what was sampled, lost and dropped from report.json's
// collectors.alloc under each title; and the allocation rate over the window (alloc.rate.tsv) as
// a metric chart, which the time view puts on its axis.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace hearth::report {

struct AllocSection {
  std::string body;                   // the section's HTML; empty: no allocation profile
  std::vector<std::string> pictures;  // files written
  std::vector<std::string> problems;  // one line each, e.g. a damaged file (the rest drawn)
  bool rate = false;                  // alloc.rate.svg written (the allocation-rate chart)
  std::string rate_clock;             // its series' clock ("realtime")
};

// Reads DIR's allocation profiles and writes their SVGs (WIDTH px) into DIR, atomically. FIGURES:
// report.json's collectors.alloc (an empty object when there is none).
AllocSection alloc_section(const std::string& dir, const std::string& target, double width,
                           const nlohmann::json& figures);

}  // namespace hearth::report
