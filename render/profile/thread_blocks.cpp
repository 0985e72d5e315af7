#include "render/profile/thread_blocks.h"

#include <utility>

#include "render/profile/folded_reader.h"

namespace hearth::profile::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string_view take_digits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] >= '0' && (*s)[n] <= '9') ++n;
  std::string_view d = s->substr(0, n);
  s->remove_prefix(n);
  return d;
}

std::string as_frame(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return out;
}

std::string module_frame(std::string_view path) {
  path = trim(path);
  if (size_t slash = path.rfind('/'); slash != std::string_view::npos)
    path.remove_prefix(slash + 1);
  if (path.empty()) return "[unknown]";
  return "[" + as_frame(path) + "]";
}

std::string thread_root(std::string_view name, std::string_view tid) {
  std::string root = "[";
  root += name.empty() ? std::string("unnamed") : as_frame(name);
  if (!tid.empty()) {
    root += " tid=";
    root += tid;
  }
  root += "]";
  return root;
}

ThreadBlockFolder::ThreadBlockFolder(std::function<void(std::string_view)> emit)
    : emit_(std::move(emit)) {}

void ThreadBlockFolder::start(std::string root) {
  end();
  root_ = std::move(root);
}

void ThreadBlockFolder::add_frame(std::string frame) {
  if (!root_.empty()) frames_.push_back(std::move(frame));
}

void ThreadBlockFolder::end() {
  if (!root_.empty() && !frames_.empty()) {
    // The leaf comes just before the count: a blank and a number at its end ("f 2") would be
    // read as a first count (a differential line), so that blank becomes '_'.
    std::string& leaf = frames_.front();
    std::string_view before = leaf;
    Count unused;
    if (take_trailing_count(&before, &unused) != TrailingCount::kNoCount) leaf[before.size()] = '_';
    line_ = root_;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      line_.push_back(';');
      line_ += *it;
    }
    line_ += " 1";
    ++threads_;
    emit_(line_);
  }
  root_.clear();
  frames_.clear();
}

}  // namespace hearth::profile::text
