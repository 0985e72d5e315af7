// The BPF programs a process holds, for tests of "nothing of ours stays in the kernel": the ids of
// those it has a descriptor of, and whether the kernel still has one.
#pragma once

#include <bpf/bpf.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/hearth_cli.h"

namespace hearth::testing_support {

// The ids of the BPF programs named NAME that process PID holds a file descriptor of (from
// /proc/PID/fdinfo: "prog_id:"). Other processes' programs (another hearth a parallel test
// runs) are not counted.
inline std::vector<__u32> programs_held(pid_t pid, const std::string& name) {
  std::vector<__u32> ids;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string info = slurp(e.path().string());
    const size_t at = info.find("prog_id:\t");
    if (at == std::string::npos) continue;
    const __u32 id = static_cast<__u32>(std::stoul(info.substr(at + 9)));
    const int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_prog_info prog = {};
    __u32 len = sizeof prog;
    if (bpf_obj_get_info_by_fd(fd, &prog, &len) == 0 && name == prog.name &&
        std::find(ids.begin(), ids.end(), id) == ids.end())
      ids.push_back(id);
    close(fd);
  }
  return ids;
}

// Whether the kernel still has the BPF program with this id.
inline bool program_exists(__u32 id) {
  const int fd = bpf_prog_get_fd_by_id(id);
  if (fd < 0) return false;
  close(fd);
  return true;
}

}  // namespace hearth::testing_support
