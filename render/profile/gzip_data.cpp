#include "render/profile/gzip_data.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace hearth::profile {
namespace {

constexpr int kGzipWindow = 15 + 16;  // zlib's windowBits for a gzip header and trailer

std::string mib(size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

Result<std::string> gzip(std::string_view data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return fail("gzip: cannot start zlib's deflate");
  }
  std::string out;
  out.resize(deflateBound(&z, data.size()));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  // deflateBound's size holds the whole output; the input is fed in chunks zlib's uInt can count.
  int rc = Z_OK;
  size_t left = data.size();
  while (rc == Z_OK) {
    size_t chunk = std::min<size_t>(left, UINT_MAX);
    z.avail_in = static_cast<uInt>(chunk);
    z.avail_out = static_cast<uInt>(
        std::min<size_t>(out.size() - static_cast<size_t>(z.total_out), UINT_MAX));
    rc = deflate(&z, chunk == left ? Z_FINISH : Z_NO_FLUSH);
    left -= chunk - z.avail_in;
  }
  out.resize(static_cast<size_t>(z.total_out));
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return fail("gzip: zlib's deflate failed (" + std::to_string(rc) + ")");
  return out;
}

Result<std::string> gunzip(std::string_view data, size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, kGzipWindow) != Z_OK) return fail("gunzip: cannot start zlib's inflate");
  struct Ender {
    z_stream* z;
    ~Ender() { inflateEnd(z); }
  } ender{&z};
  std::string out;
  char buf[64 << 10];
  size_t in_pos = 0;
  for (;;) {
    if (z.avail_in == 0 && in_pos < data.size()) {
      size_t chunk = std::min<size_t>(data.size() - in_pos, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_pos));
      z.avail_in = static_cast<uInt>(chunk);
      in_pos += chunk;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    int rc = inflate(&z, Z_NO_FLUSH);
    size_t got = sizeof buf - z.avail_out;
    if (got > max_bytes - out.size()) {
      return fail("gzip data inflates past " + mib(max_bytes) + " (the limit: a gzip bomb?)");
    }
    out.append(buf, got);
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated files); anything else after the end is junk.
      std::string_view rest = data.substr(in_pos - z.avail_in);
      if (rest.empty()) return out;
      if (!is_gzip(rest)) return fail("gzip data is followed by bytes that are not gzip");
      inflateReset(&z);
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_pos == data.size()) {
      return fail("gzip data is truncated");
    }
    if (rc != Z_OK) {
      return fail(std::string("gzip data is corrupt (") + (z.msg ? z.msg : "zlib error") + ")");
    }
  }
}

}  // namespace hearth::profile
