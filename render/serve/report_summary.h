// What `hearth serve`'s listing says of one report, from its report.json: when it started, what
// and where it recorded, the rule that fired (reports `hearth watch` writes), its window and
// what sampling cost. Pure: text in, fields out; a damaged or hostile file gives empty fields.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::serve {

struct ReportSummary {
  bool readable = false;          // report.json parsed as a JSON object
  std::optional<time_t> started;  // "started" (UTC, ISO 8601)
  std::string target;             // "mariadbd (pid 4242)", or a set's description
  std::string host;               // "host"
  std::string trigger;            // "slow_disk: pcp:disk.dev.await > 50 for 3s (was 73.5)"
  std::string window;             // "30 s", "2.14 s"
  std::string cost;               // "bpf, stall median 0.059 ms, max 0.104 ms"
};

// The largest report.json read (bytes); a larger one is not summarized.
constexpr size_t kMaxReportJson = 1 << 20;

ReportSummary summarize_report(std::string_view report_json);

}  // namespace hearth::serve
