// `hearth serve DIR`: serves a report directory (or a directory of reports) over HTTP,
// read-only, on 127.0.0.1 unless told otherwise.
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

struct ServeArgs {
  std::string dir;
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: any free port
  std::string token;
  bool quiet = false;       // no per-request log on stderr
  int head_timeout_s = 10;  // a request's line and headers must arrive whole within this
};

std::vector<std::string> validate_serve(const ServeArgs& args);
// Serves until SIGINT/SIGTERM/SIGHUP; 0 then, 1 if the server could not start, 2 bad usage.
int run_serve(const ServeArgs& args);

}  // namespace hearth::cli
