#include "collectors/stacks/remote_memory.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "common/hex.h"

namespace hearth::stacks {
namespace {

constexpr uint64_t page_floor(uint64_t a) {
  return a & ~(kPageSize - 1);
}
constexpr uint64_t page_ceil(uint64_t a) {
  return page_floor(a + kPageSize - 1);
}

// Same mapping as far as cached contents go: a change in any of these may change the bytes.
bool same_contents_mapping(const proc::Mapping& a, const proc::Mapping& b) {
  return a.start == b.start && a.end == b.end && a.offset == b.offset && a.read == b.read &&
         a.write == b.write && a.exec == b.exec && a.shared == b.shared && a.inode == b.inode &&
         a.dev == b.dev && a.path == b.path && a.deleted == b.deleted;
}

const proc::Mapping* find_in(const std::vector<proc::Mapping>& maps, uint64_t addr) {
  auto it = std::upper_bound(maps.begin(), maps.end(), addr,
                             [](uint64_t a, const proc::Mapping& m) { return a < m.start; });
  if (it == maps.begin()) return nullptr;
  --it;
  return addr < it->end ? &*it : nullptr;
}

}  // namespace

Result<RemoteMemory> RemoteMemory::open(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/mem";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return fail_errno("cannot open " + path, err);
  }
  return RemoteMemory(pid, UniqueFd(fd));
}

RemoteMemory::RemoteMemory(RemoteMemory&&) noexcept = default;
RemoteMemory& RemoteMemory::operator=(RemoteMemory&&) noexcept = default;
RemoteMemory::~RemoteMemory() = default;

bool RemoteMemory::cacheable(const proc::Mapping& m) {
  if (m.write || !m.read) return false;
  return (!m.path.empty() && m.path[0] == '/') || m.path == "[vdso]";
}

const proc::Mapping* RemoteMemory::find_mapping(uint64_t addr) const {
  return find_in(maps_, addr);
}

void RemoteMemory::set_maps(std::vector<proc::Mapping> maps) {
  std::sort(maps.begin(), maps.end(),
            [](const proc::Mapping& a, const proc::Mapping& b) { return a.start < b.start; });
  const bool unchanged = maps.size() == maps_.size() &&
                         std::equal(maps.begin(), maps.end(), maps_.begin(), same_contents_mapping);
  if (!unchanged) {
    // Keep a page only if the mapping holding it is the same in both maps.
    std::erase_if(pages_, [&](const auto& entry) {
      const proc::Mapping* before = find_in(maps_, entry.first);
      const proc::Mapping* after = find_in(maps, entry.first);
      return before == nullptr || after == nullptr || !same_contents_mapping(*before, *after) ||
             !cacheable(*after);
    });
    stats_.cached_pages = pages_.size();
    last_page_ = ~uint64_t{0};
    last_data_ = nullptr;
  }
  maps_ = std::move(maps);
}

void RemoteMemory::clear_cache() {
  pages_.clear();
  stats_.cached_pages = 0;
  last_page_ = ~uint64_t{0};
  last_data_ = nullptr;
}

ssize_t RemoteMemory::pread_all(void* out, size_t len, uint64_t addr) {
  // /proc/PID/mem takes the address as the file offset; offsets above 2^63 do not fit off_t.
  if (addr > static_cast<uint64_t>(INT64_MAX)) {
    errno = EIO;
    return -1;
  }
  ssize_t n;
  do {
    n = ::pread(fd_.get(), out, len, static_cast<off_t>(addr));
  } while (n < 0 && errno == EINTR);
  if (n > 0) stats_.bytes_read += static_cast<uint64_t>(n);
  return n;
}

// Reads the pages [lo, hi) of cacheable mapping m that are not cached yet, straight into new
// page buffers (preadv, no copy). A page the kernel refuses is remembered as unreadable.
void RemoteMemory::fill(const proc::Mapping& m, uint64_t lo, uint64_t hi) {
  lo = std::max(page_floor(lo), m.start);
  hi = std::min(page_ceil(hi), m.end);
  if (static_cast<size_t>(pages_.size() + (hi - lo) / kPageSize) * kPageSize > kMaxCachedBytes) {
    clear_cache();
  }
  constexpr size_t kBatch = 256;  // pages per preadv, well under IOV_MAX
  uint64_t page = lo;
  while (page < hi) {
    // Gather a run of uncached pages starting at `page`.
    while (page < hi && pages_.contains(page)) page += kPageSize;
    if (page >= hi) break;
    iovec iov[kBatch];
    std::unique_ptr<uint8_t[]> bufs[kBatch];
    size_t count = 0;
    for (uint64_t p = page; p < hi && count < kBatch && !pages_.contains(p); p += kPageSize) {
      bufs[count] = std::make_unique_for_overwrite<uint8_t[]>(kPageSize);
      iov[count] = {bufs[count].get(), kPageSize};
      ++count;
    }
    ssize_t n;
    do {
      n = ::preadv(fd_.get(), iov, static_cast<int>(count), static_cast<off_t>(page));
    } while (n < 0 && errno == EINTR);
    const size_t full = n > 0 ? static_cast<size_t>(n) / kPageSize : 0;
    if (n > 0) stats_.bytes_read += static_cast<uint64_t>(n);
    for (size_t i = 0; i < full; ++i) {
      pages_.emplace(page + i * kPageSize, Page{std::move(bufs[i])});
    }
    if (full < count) {
      // The kernel stops at the first page it cannot read: remember that one, and give up on
      // the rest of this range (it would be read one page at a time when asked for).
      pages_.emplace(page + full * kPageSize, Page{});
      break;
    }
    page += count * kPageSize;
  }
  stats_.cached_pages = pages_.size();
}

const uint8_t* RemoteMemory::cached_page(uint64_t page, bool* is_cacheable) {
  *is_cacheable = true;
  if (page == last_page_) {
    ++stats_.hits;
    return last_data_;
  }
  auto it = pages_.find(page);
  if (it == pages_.end()) {
    const proc::Mapping* m = find_mapping(page);
    if (m == nullptr || !cacheable(*m)) {
      *is_cacheable = false;
      return nullptr;
    }
    ++stats_.misses;
    // Read ahead: code and unwind tables are mostly read upwards.
    fill(*m, page, std::min(page + kMissPages * kPageSize, m->end));
    it = pages_.find(page);
    if (it == pages_.end()) return nullptr;  // not reached: fill() records the page either way
  } else {
    ++stats_.hits;
  }
  if (it->second.data == nullptr) return nullptr;
  last_page_ = page;
  last_data_ = it->second.data.get();
  return last_data_;
}

bool RemoteMemory::read_direct(uint64_t addr, void* out, size_t len) {
  ++stats_.outside_copy;
  const ssize_t n = pread_all(out, len, addr);
  if (n != static_cast<ssize_t>(len)) {
    ++stats_.failed;
    return false;
  }
  return true;
}

bool RemoteMemory::read(uint64_t addr, void* out, size_t len, const StackView* stack) {
  if (len == 0) return true;
  if (addr + len < addr) {
    ++stats_.failed;
    return false;
  }
  if (stack != nullptr && addr >= stack->base && addr + len <= stack->base + stack->bytes.size()) {
    std::memcpy(out, stack->bytes.data() + (addr - stack->base), len);
    return true;
  }
  auto* dst = static_cast<uint8_t*>(out);
  while (len > 0) {
    const uint64_t page = page_floor(addr);
    const size_t off = addr - page;
    const size_t n = std::min<size_t>(len, kPageSize - off);
    bool is_cacheable;
    const uint8_t* data = cached_page(page, &is_cacheable);
    if (data == nullptr) {
      if (is_cacheable) {
        ++stats_.failed;
        return false;
      }
      // Writable or unknown memory. The stack copy's own mapping beyond the copy is refused:
      // the thread runs again and those bytes no longer belong to the saved registers.
      const proc::Mapping* m = find_mapping(addr);
      const bool in_stack_mapping =
          stack != nullptr &&
          (m != nullptr ? (stack->base >= m->start && stack->base < m->end) : addr >= stack->base);
      if (in_stack_mapping) {
        ++stats_.stack_overrun;
        return false;
      }
      return read_direct(addr, dst, len);
    }
    std::memcpy(dst, data + off, n);
    addr += n;
    dst += n;
    len -= n;
  }
  return true;
}

size_t RemoteMemory::prefetch(uint64_t addr, size_t len) {
  size_t cached = 0;
  const uint64_t end = addr + len < addr ? ~uint64_t{0} : addr + len;
  for (uint64_t a = addr; a < end;) {
    const proc::Mapping* m = find_mapping(a);
    if (m == nullptr) {
      a = page_floor(a) + kPageSize;
      continue;
    }
    const uint64_t hi = std::min(end, m->end);
    if (cacheable(*m)) {
      fill(*m, a, hi);
      for (uint64_t p = page_floor(a); p < hi; p += kPageSize) {
        auto it = pages_.find(p);
        if (it != pages_.end() && it->second.data != nullptr) {
          cached += std::min(hi, p + kPageSize) - std::max(a, p);
        }
      }
    }
    a = hi;
  }
  return cached;
}

Result<StackCopy> RemoteMemory::copy_stack(uint64_t sp, size_t max_bytes) {
  StackCopy out;
  RETURN_IF_ERROR(copy_stack(sp, max_bytes, out));
  return out;
}

Result<void> RemoteMemory::copy_stack(uint64_t sp, size_t max_bytes, StackCopy& out) {
  uint64_t lo = page_floor(sp >= kRedZone ? sp - kRedZone : 0);
  uint64_t hi = ~uint64_t{0};
  if (const proc::Mapping* m = find_mapping(sp)) {
    lo = std::max(lo, m->start);
    hi = m->end;
  }
  const uint64_t pages = std::max<uint64_t>(page_ceil(max_bytes), kPageSize);
  const size_t want = static_cast<size_t>(std::min<uint64_t>(pages, hi - lo));
  if (out.bytes.size() < want) out.bytes.resize(want);  // allocates only past the capacity
  const ssize_t n = pread_all(out.bytes.data(), want, lo);
  if (n <= 0) {
    const int err = n < 0 ? errno : EIO;
    out.bytes.clear();
    return fail_errno("cannot read the stack of " + std::to_string(pid_) + " at " + hex(lo), err);
  }
  out.bytes.resize(static_cast<size_t>(n));  // shrinking never allocates
  out.base = lo;
  return {};
}

}  // namespace hearth::stacks
