// Test support: a private PCP pmcd (Debian's pcp) started in a test's own directory, with the
// PMDAs the test names loaded as DSOs, its namespace merged from their parts, a unix socket and
// a loopback port of its own, its pid file under the directory (PCP_RUN_DIR): it neither needs
// nor disturbs a pmcd the host runs. Needs root (the PMDAs run inside pmcd as root here).
#pragma once

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace hearth::testing_support {

struct PmdaDso {
  std::string name;     // as in pmcd.conf and the namespace part (root_NAME)
  int domain = 0;       // pmcd.conf's domain number
  std::string init;     // the DSO's init function
  std::string library;  // the DSO, e.g. /var/lib/pcp/pmdas/mmv/pmda_mmv.so
};

class PrivatePmcd {
 public:
  static constexpr const char* kPmcd = "/usr/lib/pcp/bin/pmcd";
  static constexpr const char* kPmnsMerge = "/usr/lib/pcp/bin/pmnsmerge";
  static constexpr const char* kPmns = "/var/lib/pcp/pmns";

  // Runs ARGV (stdout and stderr appended to LOG) with EXTRA_ENV ("NAME=VALUE") added.
  static pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
                     const std::vector<std::string>& extra_env = {}) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (const std::string& e : extra_env) putenv(const_cast<char*>(e.c_str()));
      std::FILE* out = std::freopen(log.c_str(), "a", stdout);
      if (out != nullptr) dup2(fileno(out), 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    return pid;
  }

  static int run(const std::vector<std::string>& argv, const std::string& log) {
    const pid_t pid = spawn(argv, log);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Starts pmcd in DIR (created) with the pmcd PMDA and PMDAS. "" when it runs, else why not.
  // EXTRA_ENV goes to pmcd, and so to its DSO PMDAs (e.g. PCP_TMP_DIR for pmdammv).
  std::string start(const std::string& dir, const std::vector<PmdaDso>& pmdas,
                    const std::vector<std::string>& extra_env = {}) {
    dir_ = dir;
    std::filesystem::create_directories(dir_);
    log_ = dir_ + "/tools.log";
    std::vector<std::string> merge = {kPmnsMerge, std::string(kPmns) + "/root_pmcd"};
    for (const PmdaDso& p : pmdas) merge.push_back(std::string(kPmns) + "/root_" + p.name);
    merge.push_back(dir_ + "/root");
    if (run(merge, log_) != 0) return "pmnsmerge failed: " + slurp(log_);
    {
      std::ofstream conf(dir_ + "/pmcd.conf");
      conf << "pmcd\t2\tdso\tpmcd_init\t/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so\n";
      for (const PmdaDso& p : pmdas) {
        conf << p.name << '\t' << p.domain << "\tdso\t" << p.init << '\t' << p.library << '\n';
      }
    }
    socket_ = dir_ + "/pmcd.socket";
    std::vector<std::string> env = extra_env;
    env.push_back("PCP_RUN_DIR=" + dir_);
    // A loopback port of its own (pmcd always listens on one): another pmcd on it makes this one
    // exit, and the next port is tried.
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
      const int port = 42000 + static_cast<int>(rng() % 20000);
      // A socket left by an attempt killed below would read as this one's before it is made.
      std::error_code ec;
      std::filesystem::remove(socket_, ec);
      const pid_t pid = spawn({kPmcd, "-f", "-i", "127.0.0.1", "-p", std::to_string(port), "-n",
                               dir_ + "/root", "-c", dir_ + "/pmcd.conf", "-s", socket_, "-l",
                               dir_ + "/pmcd.log", "-x", dir_ + "/pmcd.err", "-U", "root"},
                              log_, env);
      if (pid <= 0) return "cannot fork";
      // Ready when its socket and its port are there (a generous bound, not a timing).
      for (int wait = 0; wait < 200; ++wait) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) break;  // exited: a port taken; try another
        if (accepts(socket_) && listening(port)) {
          pid_ = pid;
          port_ = port;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (pid_ <= 0 && kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
    if (pid_ <= 0) return "pmcd did not start: " + slurp(dir_ + "/pmcd.log") + slurp(log_);
    return "";
  }

  ~PrivatePmcd() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }

  int port() const { return port_; }
  const std::string& socket() const { return socket_; }
  const std::string& dir() const { return dir_; }

 private:
  // A client can connect to the unix socket at PATH (pmcd's own, ready to serve).
  static bool accepts(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  }

  // Something listens on 127.0.0.1:PORT (the line in /proc/net/tcp, state 0A).
  static bool listening(int port) {
    char want[32];
    std::snprintf(want, sizeof want, "0100007F:%04X", port);
    std::ifstream tcp("/proc/net/tcp");
    for (std::string line; std::getline(tcp, line);) {
      if (line.find(want) != std::string::npos && line.find(" 0A ") != std::string::npos) {
        return true;
      }
    }
    return false;
  }

  std::string dir_, log_, socket_;
  pid_t pid_ = 0;
  int port_ = 0;
};

}  // namespace hearth::testing_support
