// `hearth watch --push URL`: each report the watcher writes is sent as `hearth push URL DIR`
// sends it, by a child process of its own (a push may wait through its retries for a minute,
// and the watcher goes on meanwhile). Each ended push is said in one line; at the end the
// watcher waits a while for the pushes still going, and leaves the rest to finish by themselves.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "bin/hearth/cmd_push.h"

namespace hearth::cli {

// The command line of `hearth push` for DIR with ARGS' destination (URL, service, labels,
// tenant, credentials, TLS, timeouts, retries, spool, body); argv[0] is "hearth".
std::vector<std::string> push_command_line(const PushArgs& args, const std::string& dir);

class BackgroundPushes {
 public:
  // LOG: one line per event, without the verb's prefix.
  BackgroundPushes(PushArgs args, std::function<void(const std::string&)> log);
  BackgroundPushes(const BackgroundPushes&) = delete;
  BackgroundPushes& operator=(const BackgroundPushes&) = delete;
  ~BackgroundPushes();  // as finish(0 s)

  // Starts the push of report directory DIR (this executable, /proc/self/exe, as a child).
  void start(const std::string& dir);
  // Says each push that has ended since (delivered, spooled: exit 3, refused: 4, failed), and
  // forgets it. Never blocks.
  void reap();
  // Waits up to BOUND for the pushes still going; those left go on by themselves (said).
  void finish(std::chrono::milliseconds bound);

  size_t running() const { return children_.size(); }

 private:
  struct Child {
    pid_t pid;
    std::string dir;
  };
  void said_ended(const Child& child, int status);

  PushArgs args_;
  std::function<void(const std::string&)> log_;
  std::vector<Child> children_;
};

}  // namespace hearth::cli
