// Fuzz target for the pprof reader (render/profile/pprof_reader.h, gzip_data.h): any bytes as a
// profile (raw protobuf; gzip when they start with its magic), read by the folded reader as
// `hearth flame` reads a .pb.gz, with a 1 MiB limit so that a gzip bomb stops early.
//
// Invariants checked (abort with context on failure):
// - a profile that is not valid adds nothing: no stack, no node;
// - a valid one adds one stack per sample the reader reports, with the sum of their values as
//   the tree's total, and no frame name holds ';' or a line break;
// - writing the tree as pprof and reading that back gives the same folded stacks (when pprof can
//   hold the tree: no count past int64), and so does it gzipped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_reader.h"
#include "render/profile/pprof_writer.h"

namespace {

namespace profile = hearth::profile;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "pprof_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

constexpr size_t kLimit = 1 << 20;

// The folded stacks of a pprof profile, or nullopt-like "" with *OK false.
std::string read_back(std::string_view data, bool* ok) {
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.max_pprof_bytes = kLimit});
  *ok = reader.read_pprof(data, "fuzz").has_value();
  tree.finalize();
  return profile::to_folded(tree);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.max_pprof_bytes = kLimit});
  auto r = reader.read_pprof(bytes, "fuzz");
  tree.finalize();
  if (!r) {
    if (r.error().message.find('\n') != std::string::npos) die("an error of two lines", bytes);
    if (tree.size() != 1 || reader.stats().lines != 0) die("a bad profile added stacks", bytes);
    return 0;
  }
  // The reader's own count of samples and values, read again directly.
  std::string raw;
  if (profile::is_gzip(bytes)) {
    auto g = profile::gunzip(bytes, kLimit);
    if (!g) die("the reader took gzip that gunzip refuses", bytes);
    raw = std::move(*g);
  } else {
    raw.assign(bytes);
  }
  uint64_t samples = 0, sum = 0;
  bool sum_overflow = false;
  auto stats = profile::read_pprof(raw, [&](std::span<const std::string_view> frames, int64_t v) {
    ++samples;
    sum_overflow |= __builtin_add_overflow(sum, static_cast<uint64_t>(v), &sum);
    for (std::string_view f : frames) {
      if (f.find_first_of(";\n\r") != std::string_view::npos) die("a frame name with ';'", f);
    }
  });
  if (!stats) die("read_pprof refuses what the folded reader took", bytes);
  if (stats->samples != samples) die("samples() is not the samples given", bytes);
  if (reader.stats().lines + reader.stats().overlong != samples) {
    die("the reader added another number of stacks", bytes);
  }
  if (!sum_overflow && !tree.overflowed() && reader.stats().overlong == 0 &&
      tree.total().whole != sum) {
    die("the total is not the sum of the values", bytes);
  }
  // The round trip.
  auto written = profile::to_pprof(tree);
  if (!written) return 0;  // a count past int64
  std::string folded = profile::to_folded(tree);
  bool ok = false;
  if (read_back(*written, &ok) != folded || !ok)
    die("pprof -> tree -> pprof changed stacks", bytes);
  auto packed = profile::gzip(*written);
  if (!packed || read_back(*packed, &ok) != folded || !ok) die("gzipped, other stacks", bytes);
  return 0;
}
