#include "common/output_guard.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>

namespace hearth {
namespace {

// What a path names, for comparing with another.
struct Identity {
  bool regular = false;  // stat succeeded on a regular file: DEV and INO are valid
  bool missing = false;  // nothing there (yet): RESOLVED is valid
  bool ignored = false;  // a device, FIFO, directory, or unreadable: never collides
  dev_t dev = 0;
  ino_t ino = 0;
  std::string resolved;  // realpath of a regular file; for a missing path, realpath(directory)
                         // + "/" + name; "" for standard input and output
};

// realpath(3) as a string, or nullopt.
std::optional<std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return std::nullopt;
  return std::string(buf);
}

// Where a missing PATH would be created: its directory resolved (lexically normalised when the
// directory does not exist either), then its name.
std::string where_created(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  if (ec) p = fs::path(path).lexically_normal();
  fs::path dir = p.parent_path();
  std::optional<std::string> real_dir = real_path(dir.string());
  return ((real_dir ? fs::path(*real_dir) : dir) / p.filename()).string();
}

Identity identify(const std::string& path, bool is_input) {
  Identity id;
  struct stat st;
  int rc = path == "-" ? ::fstat(is_input ? STDIN_FILENO : STDOUT_FILENO, &st)
                       : ::stat(path.c_str(), &st);
  int e = errno;
  if (rc == 0) {
    id.regular = S_ISREG(st.st_mode);
    id.ignored = !id.regular;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    if (id.regular && path != "-") id.resolved = real_path(path).value_or("");
    return id;
  }
  // A missing path (or a dangling symlink: AtomicFile replaces the link itself) can still be
  // named twice. Any other failure (EACCES, ELOOP) is left to the reader or writer to report.
  if (path == "-" || e != ENOENT) {
    id.ignored = true;
    return id;
  }
  id.missing = true;
  id.resolved = where_created(path);
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (a.ignored || b.ignored) return false;
  if (a.regular && b.regular) return a.dev == b.dev && a.ino == b.ino;
  // One or both missing: where the missing one would be created against where the other is.
  return !a.resolved.empty() && a.resolved == b.resolved;
}

}  // namespace

Result<void> check_outputs(const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs) {
  std::vector<Identity> in;
  in.reserve(inputs.size());
  for (const std::string& p : inputs) {
    Identity id = identify(p, true);
    if (id.missing) id.ignored = true;  // nothing to lose; its reader reports it
    in.push_back(std::move(id));
  }
  std::vector<Identity> out;
  out.reserve(outputs.size());
  for (const std::string& p : outputs) out.push_back(identify(p, false));

  for (size_t o = 0; o < outputs.size(); ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (same_file(out[o], in[i])) {
        return fail("output " + outputs[o] + " is also an input (" + inputs[i] +
                    ") — choose another name");
      }
    }
    for (size_t k = 0; k < o; ++k) {
      // Standard output named twice is written twice, in turn: nothing is replaced.
      if (outputs[o] == "-" && outputs[k] == "-") continue;
      if (same_file(out[o], out[k])) {
        return fail("outputs " + outputs[k] + " and " + outputs[o] +
                    " are the same file — choose another name");
      }
    }
  }
  return {};
}

}  // namespace hearth
