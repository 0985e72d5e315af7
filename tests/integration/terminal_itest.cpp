// hearth on a terminal, through a pseudo-terminal: `hearth stacks`'s live top-like view (drawn
// on the alternate screen, updated, quit with q or Ctrl-C, the terminal restored, the target
// released), `hearth record`'s progress line, and `hearth replay`'s keys.
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using hearth::testing_support::released;
using hearth::testing_support::Target;

// hearth running on the slave side of a pty (its stdin, stdout and stderr), COLS x ROWS.
class OnTerminal {
 public:
  OnTerminal(const std::vector<std::string>& args, int cols = 120, int rows = 30) {
    winsize ws{};
    ws.ws_col = static_cast<unsigned short>(cols);
    ws.ws_row = static_cast<unsigned short>(rows);
    pid_ = forkpty(&master_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      std::vector<char*> argv{const_cast<char*>(HEARTH_EXE)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(HEARTH_EXE, argv.data());
      _exit(127);
    }
  }
  ~OnTerminal() {
    if (pid_ > 0 && status_ == -1) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }
  bool started() const { return pid_ > 0 && master_ >= 0; }

  // Reads what the terminal shows until DONE(screen) (true) or BOUND passes.
  bool wait_until(const std::function<bool(const std::string&)>& done,
                  Clock::duration bound = 20s) {
    auto deadline = Clock::now() + bound;
    while (!done(screen_)) {
      if (Clock::now() > deadline || !read_some(deadline)) return false;
    }
    return true;
  }
  bool wait_for(const std::string& needle, Clock::duration bound = 20s) {
    return wait_until([&](const std::string& s) { return s.find(needle) != std::string::npos; },
                      bound);
  }

  void type(const std::string& keys) { (void)!write(master_, keys.data(), keys.size()); }

  // Reads to the end (the child closed the pty) and reaps hearth; its wait status.
  int finish(Clock::duration bound = 30s) {
    auto deadline = Clock::now() + bound;
    while (read_some(deadline)) {
    }
    for (;;) {
      if (waitpid(pid_, &status_, WNOHANG) == pid_) return status_;
      if (Clock::now() > deadline) {
        ADD_FAILURE() << "hearth did not exit";
        return -1;
      }
      std::this_thread::sleep_for(10ms);
    }
  }

  const std::string& screen() const { return screen_; }

 private:
  // One read; false at EOF/EIO (the child side is closed) or at the deadline.
  bool read_some(Clock::time_point deadline) {
    pollfd p{master_, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    int n = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (n == 0) return Clock::now() < deadline;
    char buf[4096];
    ssize_t got = read(master_, buf, sizeof buf);
    if (got <= 0) return false;
    screen_.append(buf, static_cast<size_t>(got));
    return true;
  }

  pid_t pid_ = -1;
  int master_ = -1;
  int status_ = -1;
  std::string screen_;
};

constexpr const char* kAltScreenOn = "\x1b[?1049h";
constexpr const char* kRestore = "\x1b[?25h\x1b[?1049l";  // cursor shown, main screen back

class OnATerminal : public testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (ptrace of another process)";
    target_ = Target::start("stack_target-fp", {"--threads", "4", "--depth", "5", "--spin", "2"});
    ASSERT_TRUE(target_);
  }
  std::unique_ptr<Target> target_;
};

TEST_F(OnATerminal, LiveViewShowsTheHottestStacksAndQuitsOnQ) {
  const std::string pid = std::to_string(target_->pid());
  OnTerminal t({"stacks", "-p", pid, "-F", "50"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.wait_for("leaf_spin")) << t.screen();
  // A second frame: the view is redrawn in place while sampling goes on.
  const std::string header = "hearth stacks  pid " + pid;
  EXPECT_TRUE(t.wait_until([&](const std::string& s) {
    size_t first = s.find(header);
    return first != std::string::npos && s.find(header, first + 1) != std::string::npos;
  })) << "never redrawn";
  const std::string& s = t.screen();
  EXPECT_EQ(s.find(kAltScreenOn), 0u) << "the view starts on the alternate screen";
  EXPECT_NE(s.find("SAMPLES  THREAD"), std::string::npos);
  EXPECT_NE(s.find("spin-0"), std::string::npos);
  EXPECT_NE(s.find("q: quit"), std::string::npos);

  t.type("q");
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << t.screen();
  // The terminal is given back, and the live view printed no folded stacks after it.
  size_t restore = t.screen().rfind(kRestore);
  ASSERT_NE(restore, std::string::npos) << "terminal not restored";
  EXPECT_EQ(t.screen().find(";leaf_spin", restore), std::string::npos);
  EXPECT_TRUE(released(target_->pid()));
  EXPECT_EQ(kill(target_->pid(), 0), 0) << "the target survived";
}

TEST_F(OnATerminal, CtrlCEndsTheLiveViewAndRestoresTheTerminal) {
  const std::string pid = std::to_string(target_->pid());
  OnTerminal t({"stacks", "-p", pid, "-F", "50"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.wait_for("leaf_spin")) << t.screen();
  t.type("\x03");  // the pty's line discipline turns it into SIGINT (ISIG stays on)
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of ending cleanly: " << status;
  EXPECT_NE(t.screen().rfind(kRestore), std::string::npos) << "terminal not restored";
  EXPECT_TRUE(released(target_->pid()));
  EXPECT_EQ(kill(target_->pid(), 0), 0);
}

TEST_F(OnATerminal, WithAnOutputFileTheFileIsWrittenInsteadOfTheView) {
  const std::string pid = std::to_string(target_->pid());
  std::string out = testing::TempDir() + "/terminal-live.folded";
  std::remove(out.c_str());
  OnTerminal t({"stacks", "-p", pid, "-F", "50", "-d", "1.5", "-o", out});
  ASSERT_TRUE(t.started());
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << t.screen();
  EXPECT_EQ(t.screen().find(kAltScreenOn), std::string::npos) << "-o: no live view";
  std::string folded = hearth::testing_support::slurp(out);
  EXPECT_NE(folded.find(";leaf_spin "), std::string::npos) << folded.substr(0, 400);
  EXPECT_TRUE(released(target_->pid()));
}

TEST_F(OnATerminal, RecordShowsItsProgressOnOneLine) {
  const std::string pid = std::to_string(target_->pid());
  std::string dir = testing::TempDir() + "/terminal-record";
  std::filesystem::remove_all(dir);
  OnTerminal t({"record", "-p", pid, "-d", "1.5", "-o", dir, "--no-mmv"});
  ASSERT_TRUE(t.started());
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << t.screen();
  const std::string& s = t.screen();
  // Redrawn in place (carriage returns), counting up to the window, then a newline.
  size_t first = s.find("\rhearth record: ");
  ASSERT_NE(first, std::string::npos) << s;
  EXPECT_NE(s.find("\rhearth record: ", first + 1), std::string::npos) << "updated once at least";
  EXPECT_NE(s.find(" of 1.5 s, "), std::string::npos) << s;
  EXPECT_NE(s.find("stack samples"), std::string::npos) << s;
  // TempDir() ends in a slash: the path is printed without the doubled one.
  const std::string index = std::filesystem::path(dir + "/index.html").lexically_normal().string();
  EXPECT_NE(s.find("wrote " + index + " ("), std::string::npos) << s;
  EXPECT_TRUE(std::filesystem::exists(dir + "/index.html"));
  EXPECT_TRUE(released(target_->pid()));
}

// `hearth replay` of the golden tests' recording (tests/golden/inputs/replay): no target, no root.
const std::string kReplayRecording =
    std::string(HEARTH_TARGET_SOURCES_DIR) + "/../../golden/inputs/replay";

// Whether NEEDLE shows after offset FROM: what the screen drew since a key was sent.
std::function<bool(const std::string&)> shows_after(size_t from, std::string needle) {
  return [from, needle = std::move(needle)](const std::string& s) {
    return s.find(needle, from) != std::string::npos;
  };
}

TEST(ReplayOnATerminal, KeysStepPlayJumpAndQuit) {
  OnTerminal t({"replay", kReplayRecording, "--at", "0.2"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.wait_for("x1 paused")) << t.screen();
  EXPECT_EQ(t.screen().find(kAltScreenOn), 0u) << "the replay starts on the alternate screen";
  EXPECT_NE(t.screen().find("hearth replay  pid 4242 (app)  +0.200 s"), std::string::npos)
      << t.screen();
  EXPECT_NE(t.screen().find("SAMPLES  THREAD"), std::string::npos) << "the live view's columns";
  EXPECT_NE(t.screen().find("STATE       FOR  THREAD"), std::string::npos);

  // Right arrow: one sample on; the flusher has just gone into fsync (D, listed first).
  size_t mark = t.screen().size();
  t.type("\x1b[C");
  ASSERT_TRUE(t.wait_until(shows_after(mark, "+0.300 s"))) << t.screen().substr(mark);
  ASSERT_TRUE(t.wait_until(shows_after(mark, "    D    0.00 s  [flusher tid=4245]")))
      << t.screen().substr(mark);
  mark = t.screen().size();
  t.type("\x1b[C");
  ASSERT_TRUE(t.wait_until(shows_after(mark, "    D    0.10 s  [flusher tid=4245]")))
      << t.screen().substr(mark);
  // Left arrow: back one.
  mark = t.screen().size();
  t.type("\x1b[D");
  ASSERT_TRUE(t.wait_until(shows_after(mark, "+0.300 s"))) << t.screen().substr(mark);
  // Slower, then g: jump to a time typed in seconds.
  mark = t.screen().size();
  t.type("[g0.8\r");
  ASSERT_TRUE(t.wait_until(shows_after(mark, "+0.800 s  2026-"))) << t.screen().substr(mark);
  ASSERT_TRUE(t.wait_until(shows_after(mark, "x1/2 paused"))) << t.screen().substr(mark);
  // Space: plays on to the end of the recording, and pauses there.
  mark = t.screen().size();
  t.type(" ");
  ASSERT_TRUE(t.wait_until(shows_after(mark, "playing"))) << t.screen().substr(mark);
  ASSERT_TRUE(t.wait_until(shows_after(mark, "+1.100 s")))
      << "never played to the end: " << t.screen().substr(mark);
  ASSERT_TRUE(t.wait_until([&](const std::string& s) {
    return s.find("paused", s.find("+1.100 s", mark)) != std::string::npos;
  })) << t.screen().substr(mark);

  t.type("q");
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << t.screen();
  size_t restore = t.screen().rfind(kRestore);
  ASSERT_NE(restore, std::string::npos) << "terminal not restored";
}

TEST(ReplayOnATerminal, CtrlCQuitsAndRestoresTheTerminal) {
  OnTerminal t({"replay", kReplayRecording, "--loop", "--speed", "0.25"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.wait_for("x1/4 playing  loop 0.000-1.100 s")) << t.screen();
  t.type("\x03");
  int status = t.finish();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of ending cleanly: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(t.screen().rfind(kRestore), std::string::npos) << "terminal not restored";
}

}  // namespace
