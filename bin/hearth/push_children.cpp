#include "bin/hearth/push_children.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <thread>

extern char** environ;

namespace hearth::cli {
namespace {

// V as the shortest text that reads back as V ("0.5", "10").
std::string push_number_arg(double v) {
  char text[32];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return std::string(text, r.ptr);
}

}  // namespace

std::vector<std::string> push_command_line(const PushArgs& a, const std::string& dir) {
  std::vector<std::string> argv = {"hearth", "push", a.url, dir, "--service", a.service,
                                   "--type", a.type, "--send-as", a.send_as};
  for (const std::string& l : a.labels) argv.insert(argv.end(), {"--label", l});
  if (!a.tenant.empty()) argv.insert(argv.end(), {"--tenant", a.tenant});
  if (!a.bearer_token_file.empty()) argv.insert(argv.end(), {"--bearer-token-file", a.bearer_token_file});
  if (!a.basic_auth_file.empty()) argv.insert(argv.end(), {"--basic-auth-file", a.basic_auth_file});
  if (!a.ca_file.empty()) argv.insert(argv.end(), {"--ca-file", a.ca_file});
  if (a.insecure) argv.emplace_back("--insecure");
  argv.insert(argv.end(), {"--timeout", push_number_arg(a.timeout), "--retries",
                           std::to_string(a.retries), "--backoff", push_number_arg(a.backoff)});
  if (a.no_spool) {
    argv.emplace_back("--no-spool");
  } else {
    if (!a.spool.empty()) argv.insert(argv.end(), {"--spool", a.spool});
    argv.insert(argv.end(), {"--spool-max-mb", push_number_arg(a.spool_max_mb)});
  }
  return argv;
}

BackgroundPushes::BackgroundPushes(PushArgs args, std::function<void(const std::string&)> log)
    : args_(std::move(args)), log_(std::move(log)) {}

BackgroundPushes::~BackgroundPushes() { finish(std::chrono::milliseconds(0)); }

void BackgroundPushes::start(const std::string& dir) {
  reap();
  const std::vector<std::string> words = push_command_line(args_, dir);
  std::vector<char*> argv;
  for (const std::string& w : words) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  // Only stdin, stdout and stderr go to the child: none of the watcher's other descriptors (its
  // BPF program and links, tracefs files) may outlive the watcher in a push still going.
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    log_("--push: cannot start the push of " + dir + ": " + std::strerror(err));
    return;
  }
  children_.push_back({pid, dir});
  log_("--push: pushing " + dir + " to " + args_.url + " (process " + std::to_string(pid) + ")");
}

void BackgroundPushes::said_ended(const Child& child, int status) {
  std::string how;
  if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case kPushDelivered: how = "delivered"; break;
      case kPushSpooled: how = "spooled: the server could not be reached (exit 3)"; break;
      case kPushRefused: how = "refused by the server (exit 4)"; break;
      default: how = "failed (exit " + std::to_string(WEXITSTATUS(status)) + ")"; break;
    }
  } else {
    how = "ended by signal " + std::to_string(WTERMSIG(status));
  }
  log_("--push: " + child.dir + ": " + how);
}

void BackgroundPushes::reap() {
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    const pid_t r = ::waitpid(it->pid, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) {
      ++it;
      continue;
    }
    if (r == it->pid) said_ended(*it, status);
    it = children_.erase(it);  // ended, or not ours to wait for any more
  }
}

void BackgroundPushes::finish(std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    reap();
    if (children_.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const Child& c : children_) {
    log_("--push: " + c.dir + ": still being pushed (process " + std::to_string(c.pid) +
         "): it goes on by itself");
  }
  children_.clear();
}

}  // namespace hearth::cli
