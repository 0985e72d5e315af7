#include "bin/hearth/input_checks.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bin/hearth/figures.h"
#include "common/file_io.h"
#include "common/output_guard.h"

namespace hearth::cli {

std::optional<Pattern> filter_pattern(const std::string& option, const std::string& text,
                                      std::vector<std::string>* problems) {
  if (text.empty()) return std::nullopt;
  Result<Pattern> p = Pattern::compile(text);
  if (!p) {
    problems->push_back(option + " " + text + ": not a regular expression (" + p.error().message +
                        ")");
    return std::nullopt;
  }
  return std::move(*p);
}

bool outputs_are_new(const char* verb, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs) {
  Result<void> r = check_outputs(inputs, outputs);
  if (!r) std::fprintf(stderr, "hearth %s: %s\n", verb, r.error().message.c_str());
  return r.has_value();
}

bool report_reading(const char* verb, const profile::ReadStats& rs) {
  auto where = [](uint64_t line, const std::string& file) {
    return "line " + std::to_string(line) + " of " + file;
  };
  if (rs.ignored == 1) {
    std::fprintf(stderr, "hearth %s: ignored 1 line that is not `frame;frame;... COUNT` (%s)\n",
                 verb, where(rs.first_ignored_line, rs.first_ignored_file).c_str());
  } else if (rs.ignored > 1) {
    std::fprintf(stderr,
                 "hearth %s: ignored %s lines that are not `frame;frame;... COUNT` (the first: "
                 "%s)\n",
                 verb, thousands(rs.ignored).c_str(),
                 where(rs.first_ignored_line, rs.first_ignored_file).c_str());
  }
  std::string limit = std::to_string(profile::kMaxLineBytes >> 20) + " MiB";
  if (rs.overlong == 1) {
    std::fprintf(stderr, "hearth %s: skipped %s: it is longer than the %s limit for one stack\n",
                 verb, where(rs.first_overlong_line, rs.first_overlong_file).c_str(),
                 limit.c_str());
  } else if (rs.overlong > 1) {
    std::fprintf(stderr,
                 "hearth %s: skipped %s lines longer than the %s limit for one stack (the first: "
                 "%s)\n",
                 verb, thousands(rs.overlong).c_str(), limit.c_str(),
                 where(rs.first_overlong_line, rs.first_overlong_file).c_str());
  }
  if (rs.overflow_line != 0) {
    std::fprintf(stderr,
                 "hearth %s: %s: the counts add up to more than %s (2^64 - 1), the most hearth "
                 "counts exactly — scale them down\n",
                 verb, where(rs.overflow_line, rs.overflow_file).c_str(),
                 thousands(profile::kMaxWholeCount).c_str());
    return false;
  }
  return true;
}

void report_perf_script(const char* verb, const profile::PerfScriptStats& ps) {
  if (ps.other_samples == 0) return;
  std::fprintf(stderr,
               "hearth %s: read the %s samples of %s, the first event of the perf script; "
               "skipped %s samples of other events (the first: %s) — `perf script "
               "--per-event-dump` writes each event's samples to a file of its own\n",
               verb, thousands(ps.samples).c_str(), ps.event.c_str(),
               thousands(ps.other_samples).c_str(), ps.other_event.c_str());
}

}  // namespace hearth::cli
