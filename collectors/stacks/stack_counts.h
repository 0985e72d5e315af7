// Aggregated stacks, the stack sampler's output model: (thread root, frames root-first) ->
// number of samples. Writes folded stacks (formats/folded.h, README "File formats": one line per
// unique stack, root first, sorted, integer counts) and feeds the live view.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <sys/types.h>

#include "formats/folded.h"

namespace hearth::stacks {

// The folded format's rules for frame names and thread roots live with the format.
using formats::folded_safe;
using formats::thread_root;

class StackCounts {
 public:
  // FRAMES root first, already folded_safe; the thread root is prepended. COUNT samples.
  void add(std::string_view root, std::span<const std::string> frames, uint64_t count = 1);

  // Every stack of OTHER, with its count.
  void add(const StackCounts& other);

  uint64_t total() const { return total_; }
  size_t unique() const { return counts_.size(); }

  // Folded text, lines sorted bytewise, "\n" after each line.
  std::string to_folded() const;

  struct Entry {
    std::string_view stack;  // "root;...;leaf"
    uint64_t count;
  };
  // The N stacks with the most samples, most first (ties: by stack text).
  std::vector<Entry> top(size_t n) const;

 private:
  std::unordered_map<std::string, uint64_t> counts_;
  uint64_t total_ = 0;
  std::string scratch_;
};

}  // namespace hearth::stacks
