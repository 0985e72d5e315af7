// Turning a request path into a file under the served directory, and nothing else.
//
// Two layers, both needed:
// 1. normalize_request_path() works on the text: the path as the HTTP library decoded it once
//    (`%2e%2e` is already `..`; a double-encoded `%252e` is the literal `%2e`, a harmless name,
//    and is never decoded again). It refuses NUL bytes, backslashes, control characters and any
//    `..` component, and returns a relative path with no `.` or empty components.
// 2. open_beneath() opens that relative path with openat2(RESOLVE_BENEATH |
//    RESOLVE_NO_MAGICLINKS): the kernel itself refuses any resolution that leaves the
//    directory, through `..` or through a symlink (absolute or relative), at the moment of the
//    open (no check-then-use race). Symlinks that stay inside are followed. Kernels before 5.6
//    (no openat2) fall back to realpath() + prefix check + O_NOFOLLOW on the last component.
//
// Hidden names (a component starting with '.': `.env`, `.git/config`, `a/.hidden/x`) are never
// served, at both layers: normalize_request_path() refuses them in the text, and open_beneath()
// refuses a file whose resolved path below the directory has one (a symlink `notes ->
// .git/config` that stays inside). Both answer ENOENT, so the server says 404: whether a hidden
// file exists is not told.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth::serve {

// "/a/b.svg" → "a/b.svg"; "/" → ""; "/a//./b/" → "a/b". Errors name the problem in a few
// words (they go into a 400 response and the server's log, never a stack trace); a hidden
// component is the one error with errnum ENOENT (a 404, like a file that does not exist).
Result<std::string> normalize_request_path(std::string_view decoded_path);

// Opens REL (from normalize_request_path; "" is the directory itself) beneath DIR_FD,
// read-only, close-on-exec. Returns the new fd; errno-style errors (ENOENT, also for a file
// reached through a hidden directory or name; EXDEV for an escape, ELOOP, EACCES, ...) in
// Error::errnum.
Result<int> open_beneath(int dir_fd, const std::string& rel);

}  // namespace hearth::serve
