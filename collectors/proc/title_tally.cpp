#include "collectors/proc/title_tally.h"

#include <algorithm>

namespace hearth::proc {

void TitleTally::count(std::string_view title) {
  if (title.empty()) return;
  const uint64_t look = ++looks_;
  auto same = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.title == title; });
  if (same != entries_.end()) {
    ++same->seen;
    same->last = look;
    return;
  }
  if (entries_.size() < kKept) {
    entries_.push_back({std::string(title), 1, look});
    return;
  }
  auto least =
      std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.seen < b.seen || (a.seen == b.seen && a.last < b.last);
      });
  *least = {std::string(title), least->seen + 1, look};
}

std::string TitleTally::most_seen() const {
  const Entry* best = nullptr;
  for (const Entry& e : entries_) {
    if (best == nullptr || e.seen > best->seen || (e.seen == best->seen && e.last > best->last))
      best = &e;
  }
  return best != nullptr ? best->title : std::string();
}

}  // namespace hearth::proc
