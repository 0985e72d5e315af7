#include "render/serve/file_body.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <random>
#include <vector>

#include "render/serve/byte_ranges.h"
#include "render/serve/request_head.h"

namespace hearth::serve {
namespace {

using SharedFile = std::shared_ptr<const UniqueFd>;

// Sends up to kSliceBytes of the file's bytes [pos, pos + len) to SINK (at least one byte).
// False if the file cannot be read or has shrunk below pos (the promised length cannot be
// kept: httplib then closes the connection), or if the client is gone.
bool send_slice(int fd, uint64_t pos, uint64_t len, httplib::DataSink& sink) {
  std::array<char, kSliceBytes> buf;  // on the connection thread's stack (8 MiB)
  size_t want = static_cast<size_t>(std::min<uint64_t>(len, buf.size()));
  ssize_t n = 0;
  do {
    n = ::pread(fd, buf.data(), want, static_cast<off_t>(pos));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  return sink.write(buf.data(), static_cast<size_t>(n));
}

// 64 random bits in hex: the chance that a file holds the boundary is nil for practical ends.
std::string random_boundary() {
  std::random_device rd;
  uint64_t bits = (static_cast<uint64_t>(rd()) << 32) | rd();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "hearth-";
  for (int i = 0; i < 16; ++i, bits >>= 4) out += kHex[bits & 15];
  return out;
}

void send_whole(const httplib::Request& req, httplib::Response& res, const SharedFile& file,
                uint64_t size, const std::string& type) {
  res.status = 200;
  res.set_header("Accept-Ranges", "bytes");
  if (size == 0) {
    res.set_content("", type);  // httplib's providers want at least one byte
    return;
  }
  if (is_compressible_type(type) &&
      req.get_header_value("Accept-Encoding").find("gzip") != std::string::npos) {
    // httplib compresses a chunked body slice by slice as it sends it; OFFSET counts the
    // uncompressed bytes sent so far.
    res.set_chunked_content_provider(type, [file, size](size_t offset, httplib::DataSink& sink) {
      if (offset >= size) {
        sink.done();
        return true;
      }
      return send_slice(file->get(), offset, size - offset, sink);
    });
    return;
  }
  res.set_content_provider(size, type,
                           [file](size_t offset, size_t length, httplib::DataSink& sink) {
                             return send_slice(file->get(), offset, length, sink);
                           });
}

void send_one_range(httplib::Response& res, const SharedFile& file, const ByteRange& range,
                    uint64_t size, const std::string& type) {
  res.status = 206;
  res.set_header("Content-Range", content_range_value(range, size));
  uint64_t first = range.first;
  res.set_content_provider(range.last - range.first + 1, type,
                           [file, first](size_t offset, size_t length, httplib::DataSink& sink) {
                             return send_slice(file->get(), first + offset, length, sink);
                           });
}

void send_multipart(httplib::Response& res, const SharedFile& file,
                    const std::vector<ByteRange>& ranges, uint64_t size, const std::string& type) {
  std::string boundary = random_boundary();
  auto pieces = std::make_shared<const std::vector<BodyPiece>>(
      multipart_byteranges(ranges, size, type, boundary));
  res.status = 206;
  res.set_content_provider(body_length(*pieces), "multipart/byteranges; boundary=" + boundary,
                           [file, pieces](size_t offset, size_t length, httplib::DataSink& sink) {
                             uint64_t start = 0;
                             for (const BodyPiece& p : *pieces) {
                               uint64_t n = p.file_length == 0 ? p.text.size() : p.file_length;
                               if (offset < start + n) {
                                 uint64_t within = offset - start;
                                 uint64_t count = std::min<uint64_t>(n - within, length);
                                 if (p.file_length == 0)
                                   return sink.write(p.text.data() + within, count);
                                 return send_slice(file->get(), p.file_offset + within, count,
                                                   sink);
                               }
                               start += n;
                             }
                             return false;  // httplib asks only within [0, body_length)
                           });
}

}  // namespace

bool is_compressible_type(const std::string& content_type) {
  // A view of CONTENT_TYPE itself (content_type.substr() would be a temporary string that
  // dies at the end of this line, leaving the view dangling).
  std::string_view t = std::string_view(content_type).substr(0, content_type.find(';'));
  return t.starts_with("text/") || t == "image/svg+xml" || t == "application/json" ||
         t == "application/javascript" || t == "application/xml" || t == "application/xhtml+xml";
}

void respond_with_file(const httplib::Request& req, httplib::Response& res, UniqueFd file,
                       uint64_t size, const std::string& content_type) {
  auto shared = std::make_shared<const UniqueFd>(std::move(file));
  RangePlan plan;  // the whole file unless a usable Range field says otherwise
  if (req.method == "GET" && !req.has_header("If-Range") &&
      req.get_header_value_count(kRangeField) == 1) {
    plan = plan_byte_ranges(req.get_header_value(kRangeField), size);
  }
  switch (plan.answer) {
    case RangeAnswer::kWhole:
      return send_whole(req, res, shared, size, content_type);
    case RangeAnswer::kUnsatisfiable:
      res.status = 416;
      res.set_header("Content-Range", "bytes */" + std::to_string(size));
      res.set_content("range not satisfiable: the file has " + std::to_string(size) + " bytes\n",
                      "text/plain; charset=utf-8");
      return;
    case RangeAnswer::kPartial:
      if (plan.ranges.size() == 1)
        return send_one_range(res, shared, plan.ranges[0], size, content_type);
      return send_multipart(res, shared, plan.ranges, size, content_type);
  }
}

}  // namespace hearth::serve
