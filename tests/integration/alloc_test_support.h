// What the allocation tests (alloc_itest, record_alloc_itest) share: the weight of an allocation
// site in a folded profile, a byte of the target's memory (a uprobe's breakpoint shows there as
// 0xcc), and the address of malloc the test targets print.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "tests/integration/target_process.h"

namespace hearth::testing_support {

// The weight of the folded lines whose stack holds FRAME (";FRAME;"), and of all lines.
struct SiteWeight {
  double site = 0, all = 0;
};
inline SiteWeight weight_at(const std::string& folded, const std::string& frame) {
  SiteWeight w;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) {
    const size_t space = l.rfind(' ');
    if (space == std::string::npos) continue;
    const double n = std::strtod(l.c_str() + space + 1, nullptr);
    w.all += n;
    if (l.find(";" + frame + ";") != std::string::npos) w.site += n;
  }
  return w;
}

// The byte at ADDR of process PID's memory, or -1.
inline int memory_byte(pid_t pid, uint64_t addr) {
  const int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (fd < 0) return -1;
  unsigned char b = 0;
  const ssize_t n = pread(fd, &b, 1, static_cast<off_t>(addr));
  close(fd);
  return n == 1 ? b : -1;
}

// The address of malloc in target T, from its "malloc ADDR" line (0: none within 10 s).
inline uint64_t malloc_address(Target& t) {
  auto line = t.read_line(std::chrono::seconds(10));
  if (!line || !line->starts_with("malloc ")) return 0;
  return std::strtoull(line->c_str() + 7, nullptr, 16);
}

}  // namespace hearth::testing_support
