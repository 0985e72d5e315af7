#include "render/serve/byte_ranges.h"

#include <algorithm>
#include <limits>

namespace hearth::serve {
namespace {

constexpr uint64_t kNoLast = std::numeric_limits<uint64_t>::max();

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_bytes_unit(std::string_view unit) {
  constexpr std::string_view kBytes = "bytes";
  if (unit.size() != kBytes.size()) return false;
  for (size_t i = 0; i < unit.size(); ++i) {
    char c = unit[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kBytes[i]) return false;
  }
  return true;
}

// 1*DIGIT; false for anything else. Saturates at 2^64-1 (a position that large is past any
// file, and a last position that large means "to the end").
bool parse_position(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    auto d = static_cast<uint64_t>(c - '0');
    v = v > (kNoLast - d) / 10 ? kNoLast : v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

RangePlan plan_byte_ranges(std::string_view header, uint64_t file_size) {
  const RangePlan whole;
  if (header.size() > kMaxRangeHeaderBytes) return whole;
  size_t eq = header.find('=');
  if (eq == std::string_view::npos || !is_bytes_unit(header.substr(0, eq))) return whole;
  // An empty file has no byte to select (RFC 9110 would allow a suffix range that selects
  // nothing, which a 206 cannot describe): the whole, empty file.
  if (file_size == 0) return whole;

  std::vector<ByteRange> wanted;
  size_t specs = 0;
  std::string_view rest = header.substr(eq + 1);
  for (;;) {
    size_t comma = rest.find(',');
    std::string_view spec = trim_blanks(rest.substr(0, comma));
    if (!spec.empty()) {
      if (++specs > kMaxRangeSpecs) return whole;
      size_t dash = spec.find('-');
      if (dash == std::string_view::npos) return whole;
      std::string_view first_text = spec.substr(0, dash), last_text = spec.substr(dash + 1);
      if (first_text.empty()) {
        // "-N": the last N bytes; "-0" selects nothing.
        uint64_t n = 0;
        if (!parse_position(last_text, &n)) return whole;
        if (n > 0) wanted.push_back({file_size - std::min(n, file_size), file_size - 1});
      } else {
        uint64_t first = 0, last = kNoLast;
        if (!parse_position(first_text, &first)) return whole;
        if (!last_text.empty() && !parse_position(last_text, &last)) return whole;
        if (last < first) return whole;  // an invalid spec makes the whole header invalid
        if (first < file_size) wanted.push_back({first, std::min(last, file_size - 1)});
      }
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (specs == 0) return whole;  // "bytes=" or "bytes=,": no range at all
  if (wanted.empty()) return RangePlan{RangeAnswer::kUnsatisfiable, {}};

  // Overlapping and adjacent ranges become one (RFC 9110 §14.2 allows coalescing); the parts
  // then go out in file order.
  std::sort(wanted.begin(), wanted.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.first < b.first; });
  std::vector<ByteRange> merged;
  for (const ByteRange& r : wanted) {
    // last < file_size <= 2^64-1, so last + 1 does not wrap.
    if (!merged.empty() && r.first <= merged.back().last + 1) {
      merged.back().last = std::max(merged.back().last, r.last);
    } else {
      merged.push_back(r);
    }
  }
  if (merged.size() > kMaxServedRanges) return whole;
  return RangePlan{RangeAnswer::kPartial, std::move(merged)};
}

std::string content_range_value(const ByteRange& range, uint64_t file_size) {
  return "bytes " + std::to_string(range.first) + "-" + std::to_string(range.last) + "/" +
         std::to_string(file_size);
}

std::vector<BodyPiece> multipart_byteranges(const std::vector<ByteRange>& ranges,
                                            uint64_t file_size, std::string_view content_type,
                                            std::string_view boundary) {
  // --B CRLF part-headers CRLF CRLF data CRLF --B ... CRLF --B-- CRLF (RFC 9110 §14.6, RFC 2046)
  std::vector<BodyPiece> pieces;
  std::string text;
  for (const ByteRange& r : ranges) {
    text += "--";
    text += boundary;
    text += "\r\nContent-Type: ";
    text += content_type;
    text += "\r\nContent-Range: " + content_range_value(r, file_size) + "\r\n\r\n";
    pieces.push_back(BodyPiece{std::move(text), 0, 0});
    pieces.push_back(BodyPiece{{}, r.first, r.last - r.first + 1});
    text = "\r\n";
  }
  text += "--";
  text += boundary;
  text += "--\r\n";
  pieces.push_back(BodyPiece{std::move(text), 0, 0});
  return pieces;
}

uint64_t body_length(const std::vector<BodyPiece>& pieces) {
  uint64_t n = 0;
  for (const BodyPiece& p : pieces) n += p.file_length == 0 ? p.text.size() : p.file_length;
  return n;
}

}  // namespace hearth::serve
