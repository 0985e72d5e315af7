#include "render/serve/safe_path.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

namespace hearth::serve {

Result<std::string> normalize_request_path(std::string_view path) {
  if (path.empty() || path.front() != '/') return fail("the path must start with /");
  if (path.size() > 4096) return fail("the path is too long");
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return fail("the path leaves the served directory");
    if (part.front() == '.') return fail("the path names a hidden file or directory", ENOENT);
    for (char c : part) {
      auto u = static_cast<unsigned char>(c);
      if (u == 0) return fail("the path holds a NUL byte");
      if (u < 0x20 || u == 0x7f) return fail("the path holds a control character");
      if (c == '\\') return fail("the path holds a backslash");
    }
    if (part.size() > 255) return fail("a path component is too long");
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

namespace {

// What the kernel resolved FD to ("/proc/self/fd/N"); empty if it cannot tell.
std::string resolved_path(int fd) {
  std::string self = "/proc/self/fd/" + std::to_string(fd);
  char buf[PATH_MAX];
  ssize_t n = ::readlink(self.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<size_t>(n));
}

// True if FD, opened beneath DIR_FD, resolved to a path below the directory with no hidden
// component. False when unsure (a path the kernel no longer shows under the directory).
bool resolved_is_visible(int dir_fd, int fd) {
  std::string root = resolved_path(dir_fd), path = resolved_path(fd);
  if (root.empty() || path.empty()) return false;
  if (path == root) return true;
  std::string prefix = root == "/" ? root : root + "/";
  if (!path.starts_with(prefix)) return false;
  std::string_view below(path);
  below.remove_prefix(prefix.size());
  size_t start = 0;
  while (start < below.size()) {
    if (below[start] == '.') return false;
    size_t slash = below.find('/', start);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

Result<int> open_beneath_fallback(int dir_fd, const std::string& rel) {
  // Resolve the directory and the candidate, and insist the second lies under the first.
  std::string self = "/proc/self/fd/" + std::to_string(dir_fd);
  char root[PATH_MAX];
  ssize_t n = ::readlink(self.c_str(), root, sizeof root - 1);
  if (n <= 0) {
    const int e = errno;  // before the message's allocation
    return fail_errno("cannot resolve the served directory", e);
  }
  root[n] = '\0';
  std::string candidate = std::string(root) + "/" + rel;
  char real[PATH_MAX];
  if (::realpath(candidate.c_str(), real) == nullptr) {
    const int e = errno;  // before the message's copy
    return fail_errno(rel, e);
  }
  std::string r = real, base = root;
  if (r != base && !(r.starts_with(base) && r[base.size()] == '/')) {
    return fail_errno(rel, EXDEV);
  }
  int fd = ::open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    return fail_errno(rel, e);
  }
  return fd;
}

}  // namespace

namespace {

Result<int> open_beneath_unchecked(int dir_fd, const std::string& rel) {
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;  // a FIFO must not block the open
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const char* p = rel.empty() ? "." : rel.c_str();
  long fd = ::syscall(SYS_openat2, dir_fd, p, &how, sizeof how);
  if (fd >= 0) return static_cast<int>(fd);
  int e = errno;
  if (e == ENOSYS) return open_beneath_fallback(dir_fd, rel);
  return fail_errno(rel.empty() ? "." : rel, e);
}

}  // namespace

Result<int> open_beneath(int dir_fd, const std::string& rel) {
  auto fd = open_beneath_unchecked(dir_fd, rel);
  if (!fd) return fd;
  // The text had no hidden component (normalize_request_path), but a symlink inside may lead
  // to one: judge the path the kernel actually opened.
  if (!resolved_is_visible(dir_fd, *fd)) {
    ::close(*fd);
    return fail_errno(rel, ENOENT);
  }
  return fd;
}

}  // namespace hearth::serve
