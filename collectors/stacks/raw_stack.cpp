#include "collectors/stacks/raw_stack.h"

namespace hearth::stacks {

std::string stack_key(const RawStack& s) {
  std::string key;
  key.append(reinterpret_cast<const char*>(s.ips.data()), s.ips.size() * sizeof(uint64_t));
  key.push_back('\0');
  for (uint32_t e : s.exact_ips) key.append(reinterpret_cast<const char*>(&e), sizeof e);
  key.push_back(s.truncated ? (s.lost ? '2' : '1') : '0');
  for (const std::string& k : s.kernel) {
    key.push_back('\0');
    key += k;
  }
  key.push_back('\1');
  key.append(reinterpret_cast<const char*>(s.kernel_ips.data()),
             s.kernel_ips.size() * sizeof(uint64_t));
  return key;
}

}  // namespace hearth::stacks
