#include "bin/hearth/cmd_serve.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "render/serve/server.h"

namespace hearth::cli {

std::vector<std::string> validate_serve(const ServeArgs& a) {
  std::vector<std::string> problems;
  std::error_code ec;
  if (!std::filesystem::is_directory(a.dir, ec))
    problems.push_back(a.dir + ": not a directory (give a report directory `hearth record` wrote)");
  if (a.port < 0 || a.port > 65535) problems.push_back("--port must be between 0 and 65535");
  if (a.head_timeout_s < 1 || a.head_timeout_s > 600)
    problems.push_back("--head-timeout must be between 1 and 600 seconds");
  if (a.bind.empty()) problems.push_back("--bind must not be empty");
  for (char c : a.token) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == ';' || c == ',' || c == 0x7f) {
      problems.push_back("--token: use letters, digits and punctuation other than ; and ,");
      break;
    }
  }
  return problems;
}

int run_serve(const ServeArgs& a) {
  std::vector<std::string> problems = validate_serve(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth serve: %s\n", p.c_str());
    return 2;
  }
  // Signals go to one thread that stops the server; every other thread blocks them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  serve::ServeOptions o;
  o.dir = a.dir;
  o.bind = a.bind;
  o.port = a.port;
  o.head_timeout_s = a.head_timeout_s;
  o.token = a.token;
  if (!a.quiet) {
    o.log = [](const std::string& line) {
      std::fprintf(stderr, "hearth serve: %s\n", line.c_str());
    };
  }
  auto server = serve::ReportServer::create(o);
  if (!server) {
    std::fprintf(stderr, "hearth serve: %s\n", server.error().message.c_str());
    return 1;
  }
  std::string host =
      a.bind.find(':') != std::string::npos && a.bind.front() != '[' ? "[" + a.bind + "]" : a.bind;
  std::string url = "http://" + host + ":" + std::to_string((*server)->port()) + "/";
  if (!a.token.empty()) url += "?token=" + a.token;
  if (!serve::is_loopback(a.bind)) {
    std::fprintf(stderr, "hearth serve: warning: listening on %s: reachable from other hosts%s\n",
                 a.bind.c_str(), a.token.empty() ? " without a token (consider --token)" : "");
  }
  std::printf("hearth serve: serving %s at %s (Ctrl-C to stop)\n", a.dir.c_str(), url.c_str());
  std::fflush(stdout);

  serve::ReportServer* s = server->get();
  std::thread watcher([s, set] {
    int sig = 0;
    sigwait(&set, &sig);
    s->stop();
  });
  bool ok = s->run();
  // run() also ends if listening fails; wake the watcher so it can be joined.
  pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();
  if (!ok) {
    std::fprintf(stderr, "hearth serve: the server stopped on an error\n");
    return 1;
  }
  std::fprintf(stderr, "hearth serve: stopped\n");
  return 0;
}

}  // namespace hearth::cli
