#include "collectors/proc/maps.h"

#include <charconv>
#include <string>

#include "collectors/proc/threads.h"
#include "common/file_io.h"

namespace hearth::proc {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

// Takes the text up to the next blank (or the end) off the front of *line.
std::string_view take_field(std::string_view* line) {
  size_t end = line->find(' ');
  if (end == std::string_view::npos) end = line->size();
  std::string_view field = line->substr(0, end);
  line->remove_prefix(end);
  while (!line->empty() && line->front() == ' ') line->remove_prefix(1);
  return field;
}

bool parse_u64(std::string_view text, int base, uint64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

// One line without its newline: "start-end perms offset dev inode   path".
bool parse_line(std::string_view line, Mapping* m) {
  std::string_view range = take_field(&line);
  std::string_view perms = take_field(&line);
  std::string_view offset = take_field(&line);
  std::string_view dev = take_field(&line);
  std::string_view inode = take_field(&line);
  size_t dash = range.find('-');
  if (dash == std::string_view::npos || perms.size() < 4) return false;
  if (!parse_u64(range.substr(0, dash), 16, &m->start) ||
      !parse_u64(range.substr(dash + 1), 16, &m->end) || !parse_u64(offset, 16, &m->offset) ||
      !parse_u64(inode, 10, &m->inode) || dev.empty()) {
    return false;
  }
  m->read = perms[0] == 'r';
  m->write = perms[1] == 'w';
  m->exec = perms[2] == 'x';
  m->shared = perms[3] == 's';
  m->dev.assign(dev);
  // What remains is the path, spaces and all (take_field already skipped the padding).
  m->deleted = line.ends_with(kDeletedSuffix);
  if (m->deleted) line.remove_suffix(kDeletedSuffix.size());
  m->path.assign(line);
  return true;
}

}  // namespace

std::vector<Mapping> parse_maps(std::string_view text) {
  std::vector<Mapping> maps;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    Mapping m;
    if (parse_line(text.substr(at, end - at), &m)) maps.push_back(std::move(m));
    at = end + 1;
  }
  return maps;
}

Result<std::vector<Mapping>> read_maps(pid_t pid) {
  ASSIGN_OR_RETURN(std::string text, read_file("/proc/" + std::to_string(pid) + "/maps"));
  return parse_maps(text);
}

Result<uint64_t> maps_fingerprint(pid_t pid) {
  constexpr uint64_t kFnvOffset = 14695981039346656037ull;
  constexpr uint64_t kFnvPrime = 1099511628211ull;
  uint64_t hash = kFnvOffset;
  RETURN_IF_ERROR(
      read_chunks("/proc/" + std::to_string(pid) + "/maps", [&hash](std::string_view chunk) {
        for (unsigned char c : chunk) {
          hash ^= c;
          hash *= kFnvPrime;
        }
      }));
  return hash;
}

}  // namespace hearth::proc
