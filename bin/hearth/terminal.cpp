#include "bin/hearth/terminal.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <string>

namespace hearth::cli {

struct Terminal::Saved {
  termios attrs;
};

namespace {
void write_all(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n <= 0) return;  // the terminal went away: nothing useful to do
    done += static_cast<size_t>(n);
  }
}
}  // namespace

Terminal::Terminal() {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return;
  saved_ = new Saved;
  if (tcgetattr(STDIN_FILENO, &saved_->attrs) != 0) {
    delete saved_;
    saved_ = nullptr;
    return;
  }
  termios raw = saved_->attrs;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);  // ISIG stays: Ctrl-C still works
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  write_all("\x1b[?1049h\x1b[?25l");  // alternate screen, hide cursor
  active_ = true;
}

Terminal::~Terminal() {
  if (active_) {
    write_all("\x1b[?25h\x1b[?1049l");
    tcsetattr(STDIN_FILENO, TCSANOW, &saved_->attrs);
  }
  delete saved_;
}

char Terminal::read_key() {
  if (!active_) return 0;
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return 0;
  char c = 0;
  return ::read(STDIN_FILENO, &c, 1) == 1 ? c : 0;
}

bool Terminal::wait_for_key(int timeout_ms) {
  if (!active_) return false;
  pollfd p{STDIN_FILENO, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) > 0;  // EINTR (a signal): false, the caller looks why
}

void Terminal::size(int* cols, int* rows) const {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    *cols = ws.ws_col;
    *rows = ws.ws_row;
  } else {
    *cols = 80;
    *rows = 24;
  }
}

void Terminal::show(const std::string& text) {
  // Home; each line clears its rest; no newline after the last (it would scroll a full
  // screen); then clear below.
  std::string out = "\x1b[H";
  for (size_t i = 0; i < text.size();) {
    size_t nl = text.find('\n', i);
    if (nl == std::string::npos) nl = text.size();
    if (i > 0) out += "\r\n";
    out.append(text, i, nl - i);
    out += "\x1b[K";
    i = nl + 1;
  }
  out += "\x1b[J";
  write_all(out);
}

}  // namespace hearth::cli
