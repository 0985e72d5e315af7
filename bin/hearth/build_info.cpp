#include "bin/hearth/build_info.h"

#include <cairo.h>
#include <gnu/libc-version.h>
#include <sys/auxv.h>

#include "common/version.h"

namespace hearth::cli {

std::string version_text() {
  std::string out = std::string("hearth ") + kVersion + " (" + kGitRevision + ")\n";
  // A dynamically linked program is started by the dynamic loader, whose base the kernel hands
  // over in the auxiliary vector; a static one has none.
  const bool dynamic = getauxval(AT_BASE) != 0;
  out += dynamic ? std::string("linked: dynamically (glibc ") + gnu_get_libc_version() + ")\n"
                 : std::string("linked: statically\n");
  out += "capture: bpf (stop-free; Linux >= 5.18 with BTF), ptrace (the fallback)\n";
  out += std::string("pictures: SVG; PNG and PDF through cairo ") + cairo_version_string() + "\n";
  return out;
}

}  // namespace hearth::cli
