// A stack as the sampler keeps it before symbolization, and the key that tells identical
// stacks apart (the sampler interns each distinct stack once and counts references to it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::stacks {

// A user stack as unwound (IPs leaf first) plus the kernel stack (leaf first, as the kernel
// lists it): names read from /proc just before a ptrace stop, or return addresses the BPF
// capture read in the same visit as the user stack.
struct RawStack {
  std::vector<uint64_t> ips;
  std::vector<uint32_t> exact_ips;
  bool truncated = false;
  bool lost = false;  // truncated where no unwind info or frame pointer led on (not a limit)
  std::vector<std::string> kernel;
  std::vector<uint64_t> kernel_ips;
};

// The bytes that identify S: equal keys, equal stacks.
std::string stack_key(const RawStack& s);

}  // namespace hearth::stacks
