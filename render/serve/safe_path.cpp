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

Result<int> open_beneath_fallback(int dir_fd, const std::string& rel) {
  // Resolve the directory and the candidate, and insist the second lies under the first.
  std::string self = "/proc/self/fd/" + std::to_string(dir_fd);
  char root[PATH_MAX];
  ssize_t n = ::readlink(self.c_str(), root, sizeof root - 1);
  if (n <= 0) return fail_errno("cannot resolve the served directory", errno);
  root[n] = '\0';
  std::string candidate = std::string(root) + "/" + rel;
  char real[PATH_MAX];
  if (::realpath(candidate.c_str(), real) == nullptr) return fail_errno(rel, errno);
  std::string r = real, base = root;
  if (r != base && !(r.starts_with(base) && r[base.size()] == '/')) {
    return fail_errno(rel, EXDEV);
  }
  int fd = ::open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return fail_errno(rel, errno);
  return fd;
}

}  // namespace

Result<int> open_beneath(int dir_fd, const std::string& rel) {
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

}  // namespace hearth::serve
