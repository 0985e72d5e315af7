// `hearth push URL [PROFILE…]`: sends profiles to Grafana Pyroscope's HTTP ingest API (push/),
// after delivering what earlier pushes to that server had to spool.
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

// The exit codes, as --help and the README say them.
inline constexpr int kPushDelivered = 0;  // every profile delivered (the spool's too)
inline constexpr int kPushFailed = 1;     // a profile could be neither delivered nor spooled
inline constexpr int kPushBadInput = 2;   // bad usage or input: nothing sent
inline constexpr int kPushSpooled = 3;    // the server could not be reached: profiles spooled
inline constexpr int kPushRefused = 4;    // the server refused a profile, or us (a 4xx answer)

inline constexpr int kDefaultPushHz = 10;  // hearth's own default -F

struct PushArgs {
  std::string url;
  std::vector<std::string> inputs;  // profiles hearth flame reads ("-": standard input)
  bool flush = false;               // no new profile: deliver the spooled ones only
  std::string service;              // the application's name (service_name)
  std::string type = "wall";        // wall or cpu
  std::vector<std::string> labels;  // NAME=VALUE
  std::string tenant;               // X-Scope-OrgID
  std::string bearer_token_file;
  std::string basic_auth_file;
  std::string ca_file;
  bool insecure = false;
  double timeout = 10;  // s
  int retries = 4;
  double backoff = 0.5;  // s
  std::string spool;     // "": the default (push/spool.h)
  double spool_max_mb = 64;
  bool no_spool = false;
  std::string send_as = "folded";  // the body: folded or pprof
  std::string format = "auto";     // the input's format
  int hz = 0;           // samples per second of each thread; 0: a report's own, else kDefaultPushHz
  long long from = -1;  // Unix seconds; -1: until - duration
  long long until = -1;  // Unix seconds; -1: the input's modification time
  double duration = 10;  // s
};

// The problems of ARGS' options (the server's URL, service, labels, tenant, credential files,
// numbers), before any profile is read, each one line; PROFILES: profiles will be pushed (a
// --service is then needed), whether or not ARGS names them yet (`hearth record --push`).
std::vector<std::string> validate_push(const PushArgs& args, bool profiles);
// Runs the verb; returns one of the exit codes above.
int run_push(const PushArgs& args);
// `record --push`'s default service: the process's name (comm), as a service name may be
// spelled (other characters become _); "" when there is no such process.
std::string service_of_process(int pid);
// NAME (a comm) as a service name may be spelled: other characters (and '.') become _.
std::string service_of_name(std::string name);

}  // namespace hearth::cli
