#include "collectors/stacks/stack_counts.h"

#include <algorithm>

namespace hearth::stacks {

std::string thread_root(std::string_view name, pid_t tid, bool merge_by_name) {
  std::string root = "[";
  root += folded_safe(name);
  if (!merge_by_name) {
    root += " tid=";
    root += std::to_string(tid);
  }
  root += ']';
  return root;
}

std::string folded_safe(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

void StackCounts::add(std::string_view root, std::span<const std::string> frames, uint64_t count) {
  scratch_.assign(root);
  for (const std::string& f : frames) {
    scratch_ += ';';
    scratch_ += f;
  }
  counts_[scratch_] += count;
  total_ += count;
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
