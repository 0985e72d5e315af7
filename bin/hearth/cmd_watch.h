// `hearth watch -p PID|--comm REGEX -o DIR --rule EXPR…|--rules FILE`: the flight recorder
// (watch/watcher.h): watches at a low rate, and when a rule holds writes a report directory
// under DIR holding the minutes before the trigger and the seconds after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bin/hearth/cmd_push.h"
#include "bin/hearth/cmd_record.h"
#include "bin/hearth/selection_cli.h"

namespace hearth::cli {

struct WatchArgs : SelectionArgs, AllocCollectorArgs {
  std::string output;                   // DIR of reports, created if missing
  std::vector<std::string> rule_files;  // --rules
  std::vector<std::string> rules;       // --rule
  bool check = false;                   // --check: parse the rules, print them, exit
  double ring = 600;                    // s kept before a trigger
  double rate = 1;                      // Hz while watching
  double frequency = 10;                // Hz while recording
  double after = 10;                    // s recorded after a trigger
  double cooldown = 300;                // s
  uint64_t per_hour = 6;
  uint64_t max_reports = 0;             // 0: no limit
  double disk_budget_mb = 1024;
  double memory_budget_mb = 64;  // RSS above it shortens the ring
  std::string method = "bpf";
  std::string symbol_cache;
  std::vector<std::string> mmv;
  std::string pcp_host = "local:";
  bool no_sched = false;
  std::string publish = "hearth_watch";  // MMV file of the live figures
  bool no_publish = false;
  std::vector<std::string> command_line;
  PushArgs push;  // --push URL: each report sent to Pyroscope as `hearth push URL DIR` does
};

std::vector<std::string> validate_watch(const WatchArgs& args);
// 0: ended cleanly (a signal, the processes gone, --max-reports written); 1: cannot watch;
// 2: bad usage or no valid rule.
int run_watch(const WatchArgs& args);

}  // namespace hearth::cli
