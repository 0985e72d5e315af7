#include "render/profile/process_names.h"

#include <vector>

#include "formats/folded.h"

namespace hearth::profile {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // U+2026

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The byte offset of every character's start in TEXT, then TEXT's size.
std::vector<size_t> char_starts(std::string_view text) {
  std::vector<size_t> at;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!continuation(text[i])) at.push_back(i);
  }
  at.push_back(text.size());
  return at;
}

}  // namespace

std::string process_label(std::string_view name, std::string_view title) {
  if (title.empty()) return std::string(name);
  // The first word is the program (unless a server rewrote it): its directory goes.
  const size_t blank = title.find(' ');
  const std::string_view program = title.substr(0, blank);
  std::string label;
  if (const size_t slash = program.rfind('/');
      slash != std::string_view::npos && slash + 1 < program.size()) {
    label = std::string(title.substr(slash + 1));
  } else {
    label = std::string(title);
  }
  return label == name ? std::string(name) : label;
}

std::string shorten(std::string_view text, size_t max) {
  if (max < 8) max = 8;
  const std::vector<size_t> at = char_starts(text);
  const size_t chars = at.size() - 1;
  if (chars <= max) return std::string(text);
  const size_t tail_max = (max - 1) / 3;
  // The tail: from the first blank in the last TAIL_MAX characters (whole words), or those
  // characters as they come when they hold no blank.
  size_t tail_from = chars - tail_max;  // in characters
  for (size_t c = tail_from; c < chars; ++c) {
    if (text[at[c]] == ' ') {
      tail_from = c;
      break;
    }
  }
  const size_t tail_chars = chars - tail_from;
  size_t head_chars = max - 1 - tail_chars;
  // The head ends at a blank in its second half, when there is one (the blank dropped).
  for (size_t c = head_chars; c > head_chars / 2; --c) {
    if (text[at[c]] == ' ') {
      head_chars = c;
      break;
    }
  }
  std::string out(text.substr(0, at[head_chars]));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += kEllipsis;
  out += text.substr(at[tail_from]);
  return out;
}

std::string short_process_label(std::string_view name, std::string_view title) {
  return shorten(process_label(name, title), kProcessLabelChars);
}

ProcessTitles process_titles(const timed_samples::Samples& samples) {
  ProcessTitles titles;
  for (const timed_samples::Process& p : samples.processes) {
    if (!p.title.empty()) titles[p.pid] = p.title;
  }
  return titles;
}

std::string titled_process_root(std::string_view frame, const ProcessTitles& titles) {
  auto root = formats::parse_process_root(frame);
  if (!root || titles.empty()) return std::string(frame);
  auto it = titles.find(root->pid);
  if (it == titles.end()) return std::string(frame);
  const std::string label = process_label(root->name, it->second);
  if (label == root->name) return std::string(frame);
  return "[" + formats::folded_safe(label) + " pid=" + std::to_string(root->pid) + "]";
}

void title_process_roots(timed_samples::Samples* samples) {
  const ProcessTitles titles = process_titles(*samples);
  if (titles.empty()) return;
  for (timed_samples::Thread& t : samples->threads) {
    const size_t end = t.root.find(';');
    const std::string_view first = std::string_view(t.root).substr(0, end);
    std::string titled = titled_process_root(first, titles);
    if (titled != first) t.root = titled + (end == std::string::npos ? "" : t.root.substr(end));
  }
}

void title_process_roots(FrameTree* tree, const ProcessTitles& titles) {
  if (titles.empty()) return;
  for (NodeId c = tree->node(kRoot).first_child; c != kNone; c = tree->node(c).next_sibling) {
    const std::string_view name = tree->name(tree->node(c).name);
    std::string titled = titled_process_root(name, titles);
    if (titled != name) tree->rename(c, tree->intern(titled));
  }
}

}  // namespace hearth::profile
