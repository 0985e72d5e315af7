// The disk spool of `hearth push`: profiles the server could not take yet, kept until a later
// push delivers them (and removed only then, after a 2xx answer).
//
// A directory of the user's (created mode 0700; refused when another user owns it or others
// may read it), one file per profile, mode 0600: written to a temporary name, synced, then
// renamed, so an entry is there whole or not at all. Names sort by the time they were spooled,
// oldest first. Its size is bounded: spooling past the bound drops the oldest entries first,
// and says so. Everything is done under an exclusive lock of DIR/lock (flock), so two pushes
// never send the same entry twice or drop one another's. An entry holds what is needed to send
// it again (the server's URL, the tenant, the path and query, the body), never a secret: the
// credentials are read again from their files when it is sent.
// Entries the server refused (a 4xx about the profile itself) are moved to DIR/refused/ (kept,
// never sent again by themselves; a user moves one back to DIR/ to retry it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::push {

struct SpoolEntry {
  std::string url;     // endpoint_url(): the server it was for
  std::string tenant;  // "" for none
  std::string target;  // path and query, as sent
  std::string content_type;
  std::string body;
};

// The entry as a file's bytes: a text header ("hearth push-spool 1", then `url`, `tenant`,
// `target`, `content-type`, `body-bytes` lines, then an empty line) and the body.
std::string encode_entry(const SpoolEntry& entry);
// The entry back from a file's bytes; anything else (truncated, a field missing or with a
// line break, a body of another length) is an error.
Result<SpoolEntry> decode_entry(std::string_view bytes);

// $XDG_STATE_HOME/hearth/push-spool, else ~/.local/state/hearth/push-spool (the user's, by
// the password database when $HOME is unset).
Result<std::string> default_spool_dir();

class Spool {
 public:
  // Opens DIR (creating it, and its missing parents, mode 0700), checks it is the user's own
  // and closed to others, takes its lock (waiting for another push's), and removes what a
  // killed push left half-written. MAX_BYTES bounds the entries' total size (refused/ too).
  static Result<Spool> open(const std::string& dir, uint64_t max_bytes);

  // The entries' file names, oldest first.
  Result<std::vector<std::string>> list() const;
  Result<SpoolEntry> read(const std::string& name) const;
  // Adds ENTRY; names the entries dropped to make room in *DROPPED (oldest first). An entry
  // bigger than the whole bound is refused (nothing dropped). Returns the new entry's name.
  Result<std::string> add(const SpoolEntry& entry, std::vector<std::string>* dropped);
  Result<void> remove(const std::string& name);
  // Moves an entry to DIR/refused/.
  Result<void> set_aside(const std::string& name);

  const std::string& dir() const { return dir_; }

 private:
  Spool(std::string dir, uint64_t max_bytes, UniqueFd dir_fd, UniqueFd lock_fd)
      : dir_(std::move(dir)),
        max_bytes_(max_bytes),
        dir_fd_(std::move(dir_fd)),
        lock_fd_(std::move(lock_fd)) {}

  std::string dir_;
  uint64_t max_bytes_ = 0;
  UniqueFd dir_fd_;
  UniqueFd lock_fd_;  // holds the flock while the Spool lives
  uint64_t sequence_ = 0;
};

}  // namespace hearth::push
