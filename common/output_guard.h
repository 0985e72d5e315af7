// The guard every verb that reads and writes files calls before it reads anything: an output
// that is one of the inputs (`hearth diff base.folded new.folded --folded-out base.folded`)
// would replace the input it was made from, so it is refused, and so are two outputs that are
// one file (one would silently replace the other).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace hearth {

// Fails with one line naming the first collision, as the user spelled the paths:
//   "output OUT is also an input (IN) — choose another name"
//   "outputs A and B are the same file — choose another name"
//
// "-" means standard input among INPUTS and standard output among OUTPUTS (the descriptor's
// file is compared: `hearth flame - < a.folded >> a.folded` collides too; "-" twice among
// OUTPUTS does not, the stream is written in turn).
//
// Two paths are the same file when stat(2), which follows symlinks, gives the same
// (st_dev, st_ino): a symlink to an input, a hard link of it, `./a` and `a` all collide. Only
// regular files can collide: a device, a FIFO or a terminal named twice (`-o /dev/null`) is
// left alone. A path that does not exist (yet) is compared by where it would be created: its
// directory with symlinks resolved, plus its name (so two outputs `x.md` and `./x.md` collide
// before either exists). Inputs that do not exist are skipped: reading them fails later, with
// the reader's own message. Reads no file contents: stat and realpath only.
Result<void> check_outputs(const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs);

}  // namespace hearth
