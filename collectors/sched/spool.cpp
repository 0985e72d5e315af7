#include "collectors/sched/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>

#include "collectors/sched/tracefs_c.h"
#include "common/file_io.h"

namespace hearth::sched {
namespace {

constexpr size_t kBufferBytes = 4 << 20;

// One CPU's records during replay.
struct Cursor {
  int cpu = 0;
  std::vector<size_t> chunks;  // indices into chunks_, in read order
  size_t next = 0;
  std::vector<char> page;
  kbuffer* kbuf = nullptr;
  void* data = nullptr;  // current record, nullptr: exhausted
  unsigned long long ts = 0;
};

}  // namespace

Result<Spool> Spool::create(const std::string& dir) {
  Spool s;
  s.fd_.reset(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!s.fd_) {
    // Filesystems without O_TMPFILE: a named file, unlinked right away.
    std::string path = dir + "/.hearth-sched-spool-XXXXXX";
    s.fd_.reset(::mkostemp(path.data(), O_CLOEXEC));
    if (!s.fd_) {
      int e = errno;
      return fail_errno("cannot create a temporary file in " + dir, e);
    }
    ::unlink(path.c_str());
  }
  s.buffer_.reserve(kBufferBytes);
  return s;
}

Spool::Spool(Spool&&) noexcept = default;
Spool& Spool::operator=(Spool&&) noexcept = default;
Spool::~Spool() = default;

void Spool::append(int cpu, const void* data, size_t size) {
  if (size == 0 || size > UINT32_MAX) return;
  if (buffer_.size() + size > kBufferBytes) (void)flush();
  chunks_.push_back({cpu, static_cast<uint32_t>(size), bytes_});
  buffer_.append(static_cast<const char*>(data), size);
  bytes_ += size;
  max_chunk_ = std::max(max_chunk_, size);
}

Result<void> Spool::flush() {
  if (!buffer_.empty() && write_errno_ == 0)
    write_errno_ = write_all(fd_.get(), buffer_.data(), buffer_.size());
  buffer_.clear();
  if (write_errno_ != 0) return fail_errno("cannot write the event spool", write_errno_);
  return {};
}

Result<uint64_t> Spool::replay(Decoder& decoder, const std::function<void(SchedEvent&)>& sink) {
  RETURN_IF_ERROR(flush());
  std::map<int, Cursor> by_cpu;
  for (size_t i = 0; i < chunks_.size(); ++i) by_cpu[chunks_[i].cpu].chunks.push_back(i);
  std::vector<Cursor*> cursors;
  uint64_t missed = 0;
  auto load = [&](Cursor& c) -> Result<void> {
    c.data = nullptr;
    while (c.data == nullptr && c.next < c.chunks.size()) {
      const Chunk& ch = chunks_[c.chunks[c.next++]];
      ssize_t n = ::pread(fd_.get(), c.page.data(), ch.size, static_cast<off_t>(ch.offset));
      if (n != static_cast<ssize_t>(ch.size)) {
        int e = n < 0 ? errno : EIO;
        return fail_errno("cannot read the event spool", e);
      }
      if (kbuffer_load_subbuffer(c.kbuf, c.page.data()) < 0) continue;
      int m = kbuffer_missed_events(c.kbuf);
      if (m > 0) missed += static_cast<uint64_t>(m);
      c.data = kbuffer_read_event(c.kbuf, &c.ts);
    }
    return {};
  };
  for (auto& [cpu, c] : by_cpu) {
    c.cpu = cpu;
    // Pages are at least a sub-buffer: kbuffer reads the header's commit size within it.
    c.page.assign(std::max<size_t>(max_chunk_, 4096), 0);
    c.kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
    if (c.kbuf == nullptr) return fail("out of memory for a kbuffer");
    cursors.push_back(&c);
  }
  Result<uint64_t> result = 0;
  for (Cursor* c : cursors) {
    if (auto r = load(*c); !r) {
      result = std::unexpected(r.error());
      break;
    }
  }
  while (result) {
    Cursor* best = nullptr;
    for (Cursor* c : cursors) {
      if (c->data != nullptr && (best == nullptr || c->ts < best->ts)) best = c;
    }
    if (best == nullptr) break;
    tep_record rec{};
    rec.ts = best->ts;
    rec.data = best->data;
    rec.size = kbuffer_event_size(best->kbuf);
    rec.cpu = best->cpu;
    SchedEvent ev;
    if (decoder.decode(&rec, &ev)) sink(ev);
    best->data = kbuffer_next_event(best->kbuf, &best->ts);
    if (best->data == nullptr) {
      if (auto r = load(*best); !r) result = std::unexpected(r.error());
    }
  }
  for (Cursor* c : cursors) kbuffer_free(c->kbuf);
  if (!result) return result;
  return missed;
}

}  // namespace hearth::sched
