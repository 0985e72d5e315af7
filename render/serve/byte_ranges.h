// `Range: bytes=...` (RFC 9110 §14) as `hearth serve` answers it: parsed by a pure function into
// a plan, never by cpp-httplib (0.11 expands every requested range of a body, overlapping or
// not, into one multipart response: 200 ranges of a 3 MB file made a 600 MB body).
//
// The plan is bounded by the file, whatever the header holds: at most kMaxServedRanges disjoint
// ranges, each inside the file, so a response never carries more bytes than the file plus a few
// part headers. Anything the parser does not like is ignored (the whole file, 200), as RFC 9110
// allows a server to do with any Range header; only a well-formed header none of whose ranges
// touch the file gets 416.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::serve {

// A header longer than this, or with more range-specs than kMaxRangeSpecs, is "too complex" and
// ignored: real clients (browsers resuming a download, PDF viewers, video players) send one to
// a handful of ranges.
inline constexpr size_t kMaxRangeHeaderBytes = 1024;
inline constexpr size_t kMaxRangeSpecs = 16;
// After merging overlapping and adjacent ranges: more than this is ignored too (200).
inline constexpr size_t kMaxServedRanges = 4;

// Inclusive byte positions inside the file: first <= last < file size.
struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

enum class RangeAnswer {
  kWhole,          // ignore the header: 200 with the whole file
  kPartial,        // 206 with `ranges` (one: a plain body; more: multipart/byteranges)
  kUnsatisfiable,  // 416 with `Content-Range: bytes */SIZE`
};

struct RangePlan {
  RangeAnswer answer = RangeAnswer::kWhole;
  std::vector<ByteRange> ranges;  // kPartial only: sorted, disjoint, not adjacent, 1..4 of them
};

// The answer to HEADER (the Range field's value, as received) for a file of FILE_SIZE bytes.
// Ignored (kWhole): another unit than `bytes` (case-insensitive), any syntax error (a spec
// without '-', a non-digit, last < first), a header over kMaxRangeHeaderBytes or with more than
// kMaxRangeSpecs specs, more than kMaxServedRanges ranges after merging, and any range on an
// empty file. Empty list elements ("0-1,,2-3", a trailing comma) and blanks around commas are
// accepted, as RFC 9110 §5.6.1 asks. Numbers too large for 64 bits saturate.
RangePlan plan_byte_ranges(std::string_view header, uint64_t file_size);

// "bytes 0-99/1000"
std::string content_range_value(const ByteRange& range, uint64_t file_size);

// A multipart/byteranges body as a list of pieces: literal text (part headers, the closing
// boundary) and slices of the file, in order. Sending the pieces in order gives the body.
struct BodyPiece {
  std::string text;          // sent as is when file_length == 0
  uint64_t file_offset = 0;  // else: file bytes [file_offset, file_offset + file_length)
  uint64_t file_length = 0;
};

// The body of a 206 multipart/byteranges answer for RANGES (from a kPartial plan) of a file of
// FILE_SIZE bytes whose own type is CONTENT_TYPE, parts separated by BOUNDARY (which must not
// occur in the file: make it random).
std::vector<BodyPiece> multipart_byteranges(const std::vector<ByteRange>& ranges,
                                            uint64_t file_size, std::string_view content_type,
                                            std::string_view boundary);

// Total bytes of PIECES (the Content-Length of the multipart body).
uint64_t body_length(const std::vector<BodyPiece>& pieces);

}  // namespace hearth::serve
