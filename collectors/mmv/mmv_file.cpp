#include "collectors/mmv/mmv_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <utility>

#include "collectors/mmv/mmv_layout.h"
#include "collectors/mmv/sigbus_guard.h"
#include "common/file_io.h"

namespace hearth::mmv {
namespace {

constexpr uint64_t kMaxFileSize = 1ull << 30;  // 1 GiB: no real MMV file comes close
constexpr size_t kStringCopy = 256;
constexpr int kAttempts = 4;

uint64_t load64(const unsigned char* p) {
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
}

uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Copies the MAX bytes at P into OUT with relaxed atomic loads (the writer may be storing into
// them). The whole field, not only up to the first NUL: a writer that clears the field and then
// copies the new text would otherwise be seen as an empty string by two quick copies.
void copy_field(const unsigned char* p, size_t max, unsigned char* out) {
  for (size_t n = 0; n < max; ++n) out[n] = __atomic_load_n(p + n, __ATOMIC_RELAXED);
}

Result<std::string> read_whole(int fd, uint64_t size, const std::string& path) {
  std::string bytes(size, '\0');
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::pread(fd, bytes.data() + got, size - got, static_cast<off_t>(got));
    if (n < 0) {
      int e = errno;
      if (e == EINTR) continue;
      return fail_errno("cannot read " + path, e);
    }
    if (n == 0) break;  // shrank since fstat: parse what is there
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

Result<MmvFile> MmvFile::open(const std::string& path) {
  MmvFile f;
  f.path_ = path;
  f.fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!f.fd_) {
    int e = errno;
    return fail_errno("cannot open " + path, e);
  }
  struct stat st {};
  if (::fstat(f.fd_.get(), &st) != 0) {
    int e = errno;
    return fail_errno("cannot stat " + path, e);
  }
  if (!S_ISREG(st.st_mode)) return fail(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxFileSize) {
    return fail(path + ": too large for an MMV file (" + std::to_string(st.st_size) + " bytes)");
  }
  f.dev_ = st.st_dev;
  f.ino_ = st.st_ino;
  ASSIGN_OR_RETURN(std::string bytes,
                   read_whole(f.fd_.get(), static_cast<uint64_t>(st.st_size), path));
  Result<Layout> layout = parse_layout(bytes);
  if (!layout) return fail(path + ": " + layout.error().message, layout.error().errnum);
  f.layout_ = std::move(*layout);
  if (f.layout_.min_size > bytes.size()) return fail(path + ": internal size mismatch");

  if (!f.layout_.slots.empty()) {
    void* m = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, f.fd_.get(), 0);
    if (m == MAP_FAILED) {
      int e = errno;
      return fail_errno("cannot map " + path, e);
    }
    f.map_ = MappedRegion(m, bytes.size());
  }
  for (size_t i = 0; i < f.layout_.slots.size(); ++i) {
    if (f.layout_.metrics[f.layout_.slots[i].metric].type == Type::kString) {
      f.string_slots_.push_back(static_cast<uint32_t>(i));
    }
  }
  f.words_.resize(f.layout_.slots.size() * 2);
  f.copies_.resize(f.string_slots_.size() * 2 * kStringCopy);
  f.string_ok_.resize(f.string_slots_.size());
  return f;
}

MmvFile::MmvFile(MmvFile&&) noexcept = default;
MmvFile& MmvFile::operator=(MmvFile&&) noexcept = default;
MmvFile::~MmvFile() = default;

SnapshotStatus MmvFile::snapshot(Snapshot* out) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    return errno == ENOENT ? SnapshotStatus::kGone : SnapshotStatus::kRetry;
  }
  if (st.st_dev != dev_ || st.st_ino != ino_) return SnapshotStatus::kReplaced;
  if (::fstat(fd_.get(), &st) != 0) return SnapshotStatus::kRetry;
  if (static_cast<uint64_t>(st.st_size) < layout_.min_size) return SnapshotStatus::kReplaced;
  out->time_ns = realtime_ns();
  out->samples.assign(layout_.slots.size(), Sample{});
  out->torn_strings = 0;
  if (layout_.slots.empty()) return SnapshotStatus::kOk;  // nothing mapped, nothing to read

  const auto* base = static_cast<const unsigned char*>(map_.get());
  uint64_t g1 = 0, g1_after = 0, g2_after = 0;
  auto copy = [&] {
    g1 = __atomic_load_n(reinterpret_cast<const uint64_t*>(base + 8), __ATOMIC_ACQUIRE);
    const Slot* slots = layout_.slots.data();
    for (size_t i = 0; i < layout_.slots.size(); ++i) {
      const unsigned char* v = base + slots[i].offset;
      uint64_t extra = load64(v + 8);
      uint64_t value = load64(v);
      for (int a = 1; a < kAttempts; ++a) {  // an elapsed interval starting or ending under us
        uint64_t extra2 = load64(v + 8);
        if (extra2 == extra) break;
        extra = extra2;
        value = load64(v);
      }
      words_[2 * i] = value;
      words_[2 * i + 1] = extra;
    }
    for (size_t k = 0; k < string_slots_.size(); ++k) {
      const Slot& s = slots[string_slots_[k]];
      unsigned char* a = &copies_[2 * k * kStringCopy];
      unsigned char* b = a + kStringCopy;
      string_ok_[k] = 0;
      for (int attempt = 0; attempt < kAttempts && !string_ok_[k]; ++attempt) {
        copy_field(base + s.string_at, s.string_max, a);
        copy_field(base + s.string_at, s.string_max, b);
        string_ok_[k] = std::memcmp(a, b, s.string_max) == 0;
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    g1_after = __atomic_load_n(reinterpret_cast<const uint64_t*>(base + 8), __ATOMIC_ACQUIRE);
    g2_after = __atomic_load_n(reinterpret_cast<const uint64_t*>(base + 16), __ATOMIC_ACQUIRE);
  };
  if (!guard_sigbus(copy)) return SnapshotStatus::kReplaced;  // truncated under the mapping
  const uint64_t gen = layout_.generation;
  if (g1 != gen || g1_after != gen || g2_after != gen) {
    bool reinitialised = g1_after == g2_after && g1_after != 0 && g1_after != gen;
    return reinitialised ? SnapshotStatus::kReplaced : SnapshotStatus::kRetry;
  }

  timeval tv{};
  gettimeofday(&tv, nullptr);
  const int64_t now_us = static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
  const bool sentinel = layout_.flags & kFlagSentinel;
  for (size_t i = 0; i < layout_.slots.size(); ++i) {
    Sample& s = out->samples[i];
    const Metric& m = layout_.metrics[layout_.slots[i].metric];
    uint64_t raw = words_[2 * i];
    auto extra = static_cast<int64_t>(words_[2 * i + 1]);
    s.present = true;
    s.raw = raw;
    switch (m.type) {
      case Type::kI32:
      case Type::kU32:
        s.present = !sentinel || static_cast<uint32_t>(raw) != 0xffffffffu;
        break;
      case Type::kI64:
      case Type::kU64:
        s.present = !sentinel || raw != ~0ull;
        break;
      case Type::kFloat: {
        float f;
        auto lo = static_cast<uint32_t>(raw);
        std::memcpy(&f, &lo, sizeof f);
        s.present = !sentinel || !std::isnan(f);
        break;
      }
      case Type::kDouble: {
        double d;
        std::memcpy(&d, &raw, sizeof d);
        s.present = !sentinel || !std::isnan(d);
        break;
      }
      case Type::kElapsed:
        s.present = !sentinel || raw != ~0ull;
        // An open interval: the writer stored -start_µs in extra.
        if (s.present && extra < 0) {
          s.raw = static_cast<uint64_t>(static_cast<int64_t>(raw) + (now_us + extra));
        }
        break;
      case Type::kString:
        break;  // below
    }
  }
  for (size_t k = 0; k < string_slots_.size(); ++k) {
    Sample& s = out->samples[string_slots_[k]];
    if (!string_ok_[k]) {
      s.present = false;
      ++out->torn_strings;
      continue;
    }
    const Slot& slot = layout_.slots[string_slots_[k]];
    const unsigned char* a = &copies_[2 * k * kStringCopy];
    s.text.assign(reinterpret_cast<const char*>(a),
                  strnlen(reinterpret_cast<const char*>(a), slot.string_max));
    s.present = !sentinel || !s.text.empty();
  }
  return SnapshotStatus::kOk;
}

bool MmvFile::writer_gone() const {
  if (!(layout_.flags & kFlagProcess) || layout_.pid <= 0) return false;
  if (::kill(layout_.pid, 0) != 0 && errno == ESRCH) return true;
  auto stat = read_file("/proc/" + std::to_string(layout_.pid) + "/stat");
  if (!stat || stat->empty()) return false;  // no /proc: trust kill()
  const std::string& line = *stat;
  size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return false;
  char state = line[paren + 2];
  return state == 'Z' || state == 'X';
}

std::string format_value(const Metric& m, const Sample& s) {
  if (!s.present) return std::string();
  char buf[64];
  auto put = [&](auto v) {
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  };
  switch (m.type) {
    case Type::kI32:
      return put(static_cast<int32_t>(static_cast<uint32_t>(s.raw)));
    case Type::kU32:
      return put(static_cast<uint32_t>(s.raw));
    case Type::kI64:
    case Type::kElapsed:
      return put(static_cast<int64_t>(s.raw));
    case Type::kU64:
      return put(s.raw);
    case Type::kFloat: {
      float f;
      auto lo = static_cast<uint32_t>(s.raw);
      std::memcpy(&f, &lo, sizeof f);
      return put(f);
    }
    case Type::kDouble: {
      double d;
      std::memcpy(&d, &s.raw, sizeof d);
      return put(d);
    }
    case Type::kString:
      return s.text;
  }
  return std::string();
}

double value_as_double(const Metric& m, const Sample& s) {
  if (!s.present) return std::nan("");
  switch (m.type) {
    case Type::kI32:
      return static_cast<int32_t>(static_cast<uint32_t>(s.raw));
    case Type::kU32:
      return static_cast<uint32_t>(s.raw);
    case Type::kI64:
    case Type::kElapsed:
      return static_cast<double>(static_cast<int64_t>(s.raw));
    case Type::kU64:
      return static_cast<double>(s.raw);
    case Type::kFloat: {
      float f;
      auto lo = static_cast<uint32_t>(s.raw);
      std::memcpy(&f, &lo, sizeof f);
      return f;
    }
    case Type::kDouble: {
      double d;
      std::memcpy(&d, &s.raw, sizeof d);
      return d;
    }
    case Type::kString:
      return std::nan("");
  }
  return std::nan("");
}

}  // namespace hearth::mmv
