// Test support: real MMV files written by PCP's libpcp_mmv (Debian's libpcp-mmv1-dev).
// libpcp reads PCP_TMP_DIR once per process, so every test in the binary shares one private
// directory; tests use distinct file names.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace hearth::mmv::testing {

// $PCP_TMP_DIR/mmv for this test process (created on first use).
inline const std::string& pcp_mmv_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/hearth-mmv-test-XXXXXX";
    std::string base = ::mkdtemp(tmpl);
    ::setenv("PCP_TMP_DIR", base.c_str(), 1);
    std::string d = base + "/mmv";
    ::mkdir(d.c_str(), 0755);
    static struct Cleanup {
      std::string path;
      ~Cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
      }
    } cleanup{base};
    return d;
  }();
  return dir;
}

inline std::string mmv_path(const std::string& name) {
  return pcp_mmv_dir() + "/" + name;
}

}  // namespace hearth::mmv::testing
