// Whole-file reads and complete writes, the one way hearth does them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth {

// Feeds the whole file to CONSUME in chunks of at most 64 KiB, from a stack buffer (no
// allocation). Reads until EOF (/proc files report size 0). A directory fails with EISDIR.
Result<void> read_chunks(const std::string& path,
                         const std::function<void(std::string_view chunk)>& consume);

// The whole file as a string; errors say "cannot read PATH: REASON".
Result<std::string> read_file(const std::string& path);

// Reads FD to its end, appending to DATA, but stops once DATA holds more than LIMIT bytes (one
// past it, so that a caller tells a file at the limit from one past it: DATA.size() > LIMIT).
// Returns 0, or the errno of a failed read (EINTR retried).
int read_fd_bounded(int fd, size_t limit, std::string& data);

// Writes all SIZE bytes to FD, retrying short writes and EINTR. Returns 0, or the errno.
int write_all(int fd, const char* data, size_t size);

}  // namespace hearth
