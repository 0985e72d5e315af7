// Fuzz target: the request parsers of `hearth serve` on any bytes, each input fed to all three.
// - normalize_request_path(): an accepted path is relative, has no empty, `.`, `..` or hidden
//   (leading '.') component, no NUL, control byte or backslash; normalizing it again (with a
//   leading '/') gives it back unchanged.
// - plan_byte_ranges() (the input as a Range field, and after "bytes="), for several file
//   sizes: a partial plan holds 1 to kMaxServedRanges ranges inside the file, in order, neither
//   overlapping nor adjacent, so never more bytes than the file; other answers hold none. The
//   multipart layout of a plan counts exactly its pieces.
// - prepare_request_head(): what it hands httplib has no `Range` field left and no more lines
//   than it was given.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "render/serve/byte_ranges.h"
#include "render/serve/request_head.h"
#include "render/serve/safe_path.h"

namespace {

using namespace hearth::serve;

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_path(std::string_view in) {
  auto r = normalize_request_path(in);
  if (!r) {
    check(!r.error().message.empty());
    return;
  }
  const std::string& p = *r;
  check(p.empty() || (p.front() != '/' && p.back() != '/'));
  size_t start = 0;
  while (start <= p.size() && !p.empty()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string_view part(p.data() + start, end - start);
    check(!part.empty() && part.front() != '.');
    start = end + 1;
  }
  for (char c : p) {
    auto u = static_cast<unsigned char>(c);
    check(u >= 0x20 && u != 0x7f && c != '\\');
  }
  auto again = normalize_request_path("/" + p);
  check(again && *again == p);
}

void fuzz_ranges(std::string_view header, uint64_t size) {
  RangePlan plan = plan_byte_ranges(header, size);
  if (plan.answer != RangeAnswer::kPartial) {
    check(plan.ranges.empty());
    return;
  }
  check(!plan.ranges.empty() && plan.ranges.size() <= kMaxServedRanges);
  uint64_t total = 0;
  for (size_t i = 0; i < plan.ranges.size(); ++i) {
    const ByteRange& r = plan.ranges[i];
    check(r.first <= r.last && r.last < size);
    if (i > 0) check(plan.ranges[i - 1].last + 1 < r.first);
    total += r.last - r.first + 1;
  }
  check(total <= size);
  if (plan.ranges.size() > 1) {
    auto pieces = multipart_byteranges(plan.ranges, size, "text/plain", "B");
    uint64_t sum = 0, file_bytes = 0;
    for (const BodyPiece& p : pieces) {
      sum += p.file_length == 0 ? p.text.size() : p.file_length;
      file_bytes += p.file_length;
    }
    check(sum == body_length(pieces) && file_bytes == total);
  }
}

size_t count_lines(std::string_view s) {
  size_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) {
    size_t nl = s.find('\n', pos);
    pos = nl == std::string_view::npos ? s.size() : nl + 1;
  }
  return n;
}

void fuzz_head(std::string_view in) {
  auto out = prepare_request_head(in, HeadLimits{});
  if (!out) return;
  check(count_lines(*out) <= count_lines(in));
  // After the request line, no line is named Range (in any case).
  size_t pos = out->find('\n');
  while (pos != std::string::npos && pos + 1 < out->size()) {
    std::string_view line(out->data() + pos + 1, out->size() - pos - 1);
    std::string name(line.substr(0, std::min<size_t>(line.find(':'), 6)));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    check(!(line.find(':') == 5 && name == "range"));
    pos = out->find('\n', pos + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_path(in);
  for (uint64_t file_size : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{3300000},
                             std::numeric_limits<uint64_t>::max()}) {
    fuzz_ranges(in, file_size);
    fuzz_ranges("bytes=" + std::string(in), file_size);
  }
  fuzz_head(in);
  return 0;
}
