#include "collectors/stacks/stack_counts.h"

#include <algorithm>

namespace hearth::stacks {

void StackCounts::add(std::string_view root, std::span<const std::string> frames, uint64_t count) {
  scratch_.assign(root);
  for (const std::string& f : frames) {
    scratch_ += ';';
    scratch_ += f;
  }
  counts_[scratch_] += count;
  total_ += count;
}

void StackCounts::add(const StackCounts& other) {
  for (const auto& [stack, count] : other.counts_) counts_[stack] += count;
  total_ += other.total_;
}

std::string StackCounts::to_folded() const {
  std::vector<const std::pair<const std::string, uint64_t>*> lines;
  lines.reserve(counts_.size());
  for (const auto& kv : counts_) lines.push_back(&kv);
  std::sort(lines.begin(), lines.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string out;
  for (const auto* kv : lines) {
    out += kv->first;
    out += ' ';
    out += std::to_string(kv->second);
    out += '\n';
  }
  return out;
}

std::vector<StackCounts::Entry> StackCounts::top(size_t n) const {
  std::vector<Entry> all;
  all.reserve(counts_.size());
  for (const auto& [stack, count] : counts_) all.push_back({stack, count});
  auto better = [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.stack < b.stack;
  };
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<long>(n), all.end(), better);
  all.resize(n);
  return all;
}

}  // namespace hearth::stacks
