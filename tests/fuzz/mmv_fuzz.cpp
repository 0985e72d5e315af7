// Fuzz target for the MMV reader: the input is an MMV file's bytes. parse_layout must give an
// error or a layout whose every slot lies in the file; an accepted file is then written to a
// memfd, opened and snapshotted through the mapping, and its values formatted as the TSV does.
//
// Invariants checked (abort with context on failure): errors are one line; slots, strings and
// instances are inside the file; a snapshot of an unchanging file succeeds.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "collectors/mmv/mmv_file.h"
#include "collectors/mmv/mmv_layout.h"
#include "collectors/mmv/series_output.h"

namespace {

namespace mmv = hearth::mmv;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "mmv_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  hearth::Result<mmv::Layout> L = mmv::parse_layout(bytes);
  if (!L) {
    if (L.error().message.empty() || L.error().message.find('\n') != std::string::npos) {
      die("bad error message", L.error().message);
    }
    return 0;
  }
  if (L->min_size > size) die("min_size past the end");
  for (const mmv::Slot& s : L->slots) {
    if (s.metric >= L->metrics.size()) die("slot metric out of range");
    if (s.offset % 8 != 0 || s.offset + 32 > size) die("slot outside the file");
    if (s.instance >= static_cast<int64_t>(L->instances.size())) die("instance out of range");
    if (L->metrics[s.metric].type == mmv::Type::kString && s.string_at + s.string_max > size) {
      die("string outside the file");
    }
  }
  for (const mmv::Instance& in : L->instances) {
    if (in.indom >= L->indoms.size()) die("instance indom out of range");
  }
  int fd = memfd_create("mmv_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  hearth::Result<mmv::MmvFile> f = mmv::MmvFile::open(path);
  if (!f) die("parsed but did not open", f.error().message);
  mmv::Snapshot snap;
  mmv::SnapshotStatus st = f->snapshot(&snap);
  // /proc/self/fd/N resolves to the memfd: same inode, same size, unchanged.
  if (st != mmv::SnapshotStatus::kOk) die("snapshot of an unchanging file failed");
  std::string out;
  mmv::SeriesTsvWriter w({1000000000, true}, [&](std::string_view s) { out.append(s); });
  mmv::Series series{1, "fuzz", std::move(*f), false};
  w.on_series(series);
  w.on_values(series, snap);
  (void)mmv::format_table(series, snap, true);
  close(fd);
  return 0;
}
