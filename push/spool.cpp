#include "push/spool.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "common/file_io.h"

namespace hearth::push {
namespace {

constexpr std::string_view kMagic = "hearth push-spool 1\n";
constexpr std::string_view kSuffix = ".push";
constexpr std::string_view kTempPrefix = ".tmp-";
constexpr const char* kRefused = "refused";

bool is_entry_name(std::string_view name) {
  return name.ends_with(kSuffix) && !name.starts_with('.') &&
         name.find('/') == std::string_view::npos;
}

// mkdir -p DIR, each directory made mode 0700.
Result<void> make_dirs(const std::string& dir) {
  std::string partial;
  size_t i = 0;
  while (i <= dir.size()) {
    size_t slash = dir.find('/', i);
    if (slash == std::string::npos) slash = dir.size();
    partial = dir.substr(0, slash);
    i = slash + 1;
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return fail_errno("cannot create the spool directory " + partial, errno);
    }
  }
  return {};
}

// The entries (name, bytes) in FOLDER (DIR or DIR/refused), by name.
std::vector<std::pair<std::string, uint64_t>> entries_in(const std::string& folder) {
  std::vector<std::pair<std::string, uint64_t>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (!is_entry_name(name)) continue;
    std::error_code size_ec;
    const uint64_t size = e.file_size(size_ec);
    out.emplace_back(name, size_ec ? 0 : size);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<void> sync_dir(int dir_fd, const std::string& dir) {
  if (::fsync(dir_fd) != 0) return fail_errno("cannot sync " + dir, errno);
  return {};
}

}  // namespace

std::string encode_entry(const SpoolEntry& e) {
  std::string out(kMagic);
  out += "url " + e.url + "\n";
  out += "tenant " + e.tenant + "\n";
  out += "target " + e.target + "\n";
  out += "content-type " + e.content_type + "\n";
  out += "body-bytes " + std::to_string(e.body.size()) + "\n\n";
  out += e.body;
  return out;
}

Result<SpoolEntry> decode_entry(std::string_view bytes) {
  if (!bytes.starts_with(kMagic)) return fail("not a hearth spool entry");
  bytes.remove_prefix(kMagic.size());
  SpoolEntry e;
  std::string* fields[] = {&e.url, &e.tenant, &e.target, &e.content_type};
  constexpr std::string_view kKeys[] = {"url ", "tenant ", "target ", "content-type "};
  for (size_t i = 0; i < 4; ++i) {
    size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos || !bytes.starts_with(kKeys[i])) {
      return fail("a spool entry without its " +
                  std::string(kKeys[i].substr(0, kKeys[i].size() - 1)) + " line");
    }
    *fields[i] = std::string(bytes.substr(kKeys[i].size(), nl - kKeys[i].size()));
    bytes.remove_prefix(nl + 1);
  }
  constexpr std::string_view kBody = "body-bytes ";
  size_t nl = bytes.find('\n');
  if (nl == std::string_view::npos || !bytes.starts_with(kBody)) {
    return fail("a spool entry without its body-bytes line");
  }
  std::string_view digits = bytes.substr(kBody.size(), nl - kBody.size());
  uint64_t size = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      (digits.size() > 1 && digits[0] == '0')) {
    return fail("a spool entry whose body-bytes is not a number as hearth writes it");
  }
  bytes.remove_prefix(nl + 1);
  if (!bytes.starts_with('\n')) return fail("a spool entry without the blank line before its body");
  bytes.remove_prefix(1);
  if (bytes.size() != size) {
    return fail("a spool entry whose body is " + std::to_string(bytes.size()) + " bytes, not " +
                std::to_string(size));
  }
  if (e.url.empty() || e.target.empty() || e.target[0] != '/') {
    return fail("a spool entry without a server or a target");
  }
  e.body = std::string(bytes);
  return e;
}

Result<std::string> default_spool_dir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
    return std::string(state) + "/hearth/push-spool";
  }
  std::string home;
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/') {
    home = h;
  } else if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_dir != nullptr) {
    home = pw->pw_dir;
  }
  if (home.empty()) return fail("no home directory for the spool: give --spool DIR");
  return home + "/.local/state/hearth/push-spool";
}

Result<Spool> Spool::open(const std::string& dir_arg, uint64_t max_bytes) {
  std::string dir = dir_arg;
  while (dir.size() > 1 && dir.ends_with('/')) dir.pop_back();
  RETURN_IF_ERROR(make_dirs(dir));
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir_fd) return fail_errno("cannot open the spool directory " + dir, errno);
  struct stat st {};
  if (::fstat(dir_fd.get(), &st) != 0) return fail_errno("cannot stat " + dir, errno);
  if (st.st_uid != ::geteuid()) {
    return fail("spool directory " + dir + " belongs to another user: give --spool DIR of yours");
  }
  if ((st.st_mode & 077) != 0) {
    return fail("spool directory " + dir + " is open to other users (mode " +
                std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                std::to_string(st.st_mode & 7) + "): chmod 700 " + dir);
  }
  UniqueFd lock(::openat(dir_fd.get(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock) return fail_errno("cannot open " + dir + "/lock", errno);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return fail_errno("cannot lock " + dir + "/lock", errno);
  }
  if (::mkdirat(dir_fd.get(), kRefused, 0700) != 0 && errno != EEXIST) {
    return fail_errno("cannot create " + dir + "/" + kRefused, errno);
  }
  // What a push killed while writing left (only a push holding the lock writes).
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().starts_with(kTempPrefix)) {
      std::filesystem::remove(e.path(), ec);
    }
  }
  return Spool(dir, max_bytes, std::move(dir_fd), std::move(lock));
}

Result<std::vector<std::string>> Spool::list() const {
  std::vector<std::string> names;
  for (auto& [name, size] : entries_in(dir_)) names.push_back(name);
  return names;
}

Result<SpoolEntry> Spool::read(const std::string& name) const {
  auto bytes = read_file(dir_ + "/" + name);
  if (!bytes) return std::unexpected(bytes.error());
  auto entry = decode_entry(*bytes);
  if (!entry) return fail(dir_ + "/" + name + ": " + entry.error().message);
  return entry;
}

Result<std::string> Spool::add(const SpoolEntry& entry, std::vector<std::string>* dropped) {
  const std::string bytes = encode_entry(entry);
  if (bytes.size() > max_bytes_) {
    return fail("the profile (" + std::to_string(bytes.size() >> 10) +
                " KiB) is larger than the whole spool may be (--spool-max-mb)");
  }
  // Oldest first, over DIR and DIR/refused/ (names sort by time in both).
  struct Held {
    std::string name;
    uint64_t size;
    bool refused;
  };
  std::vector<Held> held;
  uint64_t total = 0;
  for (auto& [n, s] : entries_in(dir_)) held.push_back({n, s, false}), total += s;
  for (auto& [n, s] : entries_in(dir_ + "/" + kRefused)) held.push_back({n, s, true}), total += s;
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.name < b.name; });
  for (const Held& h : held) {
    if (total + bytes.size() <= max_bytes_) break;
    const std::string path = dir_ + (h.refused ? std::string("/") + kRefused : "") + "/" + h.name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return fail_errno("cannot drop " + path + " to make room", errno);
    }
    total -= h.size;
    if (dropped != nullptr)
      dropped->push_back((h.refused ? std::string(kRefused) + "/" : "") + h.name);
  }

  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  char name[96];
  std::snprintf(name, sizeof name, "%010lld%09ld-%d-%llu.push", static_cast<long long>(now.tv_sec),
                now.tv_nsec, static_cast<int>(::getpid()),
                static_cast<unsigned long long>(sequence_++));
  const std::string temp = std::string(kTempPrefix) + name;
  UniqueFd fd(::openat(dir_fd_.get(), temp.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return fail_errno("cannot write in the spool " + dir_, errno);
  int err = write_all(fd.get(), bytes.data(), bytes.size());
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (err == 0 && fd.close() != 0) err = errno;
  if (err == 0 && ::renameat(dir_fd_.get(), temp.c_str(), dir_fd_.get(), name) != 0) err = errno;
  if (err != 0) {
    ::unlinkat(dir_fd_.get(), temp.c_str(), 0);
    return fail_errno("cannot write in the spool " + dir_, err);
  }
  RETURN_IF_ERROR(sync_dir(dir_fd_.get(), dir_));
  return std::string(name);
}

Result<void> Spool::remove(const std::string& name) {
  if (::unlinkat(dir_fd_.get(), name.c_str(), 0) != 0) {
    return fail_errno("cannot remove " + dir_ + "/" + name, errno);
  }
  return sync_dir(dir_fd_.get(), dir_);
}

Result<void> Spool::set_aside(const std::string& name) {
  const std::string to = std::string(kRefused) + "/" + name;
  if (::renameat(dir_fd_.get(), name.c_str(), dir_fd_.get(), to.c_str()) != 0) {
    return fail_errno("cannot move " + dir_ + "/" + name + " to " + kRefused + "/", errno);
  }
  return sync_dir(dir_fd_.get(), dir_);
}

}  // namespace hearth::push
