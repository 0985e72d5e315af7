#include "collectors/proc/processes.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "common/file_io.h"

namespace hearth::proc {

Result<std::vector<pid_t>> list_processes() {
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) {
    int e = errno;
    return fail_errno("cannot list /proc", e);
  }
  std::vector<pid_t> pids;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(dir);
    int e = errno;
    if (entry == nullptr) {
      ::closedir(dir);
      if (e != 0) return fail_errno("cannot list /proc", e);
      break;
    }
    std::string_view name(entry->d_name);
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec == std::errc() && end == name.data() + name.size() && pid > 0) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::string parse_cmdline(std::string_view bytes) {
  while (!bytes.empty() && (bytes.back() == '\0' || bytes.back() == ' ')) bytes.remove_suffix(1);
  std::string title;
  title.reserve(std::min(bytes.size(), kMaxTitleBytes));
  for (char c : bytes) {
    if (title.size() >= kMaxTitleBytes) {
      // Cut at a character's start: a UTF-8 continuation byte (10xxxxxx) goes with the rest.
      size_t cut = kMaxTitleBytes - 3;
      while (cut > 0 && (static_cast<unsigned char>(title[cut]) & 0xC0) == 0x80) --cut;
      title.resize(cut);
      title += "...";
      break;
    }
    if (c == '\0') c = ' ';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    title += c;
  }
  return title;
}

Result<std::string> process_title(pid_t pid) {
  ASSIGN_OR_RETURN(std::string bytes, read_file("/proc/" + std::to_string(pid) + "/cmdline"));
  return parse_cmdline(bytes);
}

}  // namespace hearth::proc
