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

// Writes all SIZE bytes to FD, retrying short writes and EINTR. Returns 0, or the errno.
int write_all(int fd, const char* data, size_t size);

}  // namespace hearth
