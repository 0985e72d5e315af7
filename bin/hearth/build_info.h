// What `hearth --version` says: the version and revision, how the binary is linked (an operator
// copying it to a host needs to know whether it needs that host's libraries), which ways of
// taking stacks it has, and what it draws pictures with.
#pragma once

#include <string>

namespace hearth::cli {

// Lines, each ending in '\n':
//   hearth 0.1.0 (3f2a1c9)
//   linked: dynamically (glibc 2.36) | statically
//   capture: bpf (stop-free; Linux >= 5.18 with BTF), ptrace (the fallback)
//   pictures: SVG; PNG and PDF through cairo 1.16.0
std::string version_text();

}  // namespace hearth::cli
