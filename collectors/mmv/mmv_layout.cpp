#include "collectors/mmv/mmv_layout.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "common/hex.h"

namespace hearth::mmv {
namespace {

// A name from the file as it may appear in a one-line error: control bytes as \xHH, at most
// 80 bytes (names come from untrusted files).
std::string shown(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : name.substr(0, 80)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  if (name.size() > 80) out += "...";
  return out;
}

// On-disk sizes (man 5 mmv).
constexpr size_t kTocSize = 16;
constexpr size_t kIndomSize = 32;
constexpr size_t kInstance1Size = 80;
constexpr size_t kInstance2Size = 24;
constexpr size_t kMetric1Size = 104;
constexpr size_t kMetric2Size = 48;
constexpr size_t kValueSize = 32;
constexpr size_t kStringSize = 256;
constexpr size_t kLabelSize = 256;
constexpr size_t kNameMax = 64;
constexpr size_t kLabelMax = 244;
constexpr int kMaxTocs = 16;  // writers use at most 6; a few more are tolerated

enum Toc : int { kIndoms = 1, kInstances, kMetrics, kValues, kStrings, kLabels, kTocKinds };
const char* toc_name(int t) {
  static const char* const names[] = {"?",      "indoms",  "instances", "metrics",
                                      "values", "strings", "labels"};
  return t > 0 && t < kTocKinds ? names[t] : "?";
}

template <typename T>
T load(std::string_view b, uint64_t at) {  // caller checked at + sizeof(T) <= b.size()
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

struct Section {
  bool present = false;
  uint64_t offset = 0;
  uint64_t count = 0;
  uint64_t entry = 0;  // bytes per entry
  uint64_t bytes() const { return count * entry; }
  // OFF is the start of an entry of this section: its index, else nullopt.
  std::optional<uint64_t> index_of(uint64_t off) const {
    if (!present || off < offset || off - offset >= bytes()) return std::nullopt;
    if ((off - offset) % entry != 0) return std::nullopt;
    return (off - offset) / entry;
  }
};

// Text of at most MAX bytes at OFF, cut at the first NUL (writers such as Parfait may fill the
// field without one). OFF 0 means "no text". Error when OFF is outside the file.
Result<std::string> text_at(std::string_view b, uint64_t off, size_t max, const char* what) {
  if (off == 0) return std::string();
  if (off >= b.size()) {
    return fail(std::string(what) + " at " + hex(off) + " is past the end of the file");
  }
  size_t n = std::min<uint64_t>(max, b.size() - off);
  std::string_view s(b.data() + off, n);
  return std::string(s.substr(0, s.find('\0')));
}

std::string inline_text(std::string_view b, uint64_t off, size_t max) {
  std::string_view s(b.data() + off, max);
  return std::string(s.substr(0, s.find('\0')));
}

Units decode_units(uint32_t u) {
  // pmUnits on little-endian hosts: 8 bits of padding, then 4-bit fields scaleCount,
  // scaleTime, scaleSpace, dimCount, dimTime, dimSpace (dimensions and count scale signed).
  auto field = [u](int shift) { return static_cast<int>((u >> shift) & 0xf); };
  auto sfield = [&](int shift) {
    int v = field(shift);
    return v >= 8 ? v - 16 : v;
  };
  Units r;
  r.scale_count = sfield(8);
  r.scale_time = field(12);
  r.scale_space = field(16);
  r.dim_count = sfield(20);
  r.dim_time = sfield(24);
  r.dim_space = sfield(28);
  return r;
}

std::optional<Type> decode_type(int32_t t) {
  switch (t) {
    case 0:
      return Type::kI32;
    case 1:
      return Type::kU32;
    case 2:
      return Type::kI64;
    case 3:
      return Type::kU64;
    case 4:
      return Type::kFloat;
    case 5:
      return Type::kDouble;
    case 6:
      return Type::kString;
    case 9:
      return Type::kElapsed;
    default:
      return std::nullopt;
  }
}

Semantics decode_semantics(int32_t s) {
  switch (s) {
    case 1:
      return Semantics::kCounter;
    case 3:
      return Semantics::kInstant;
    case 4:
      return Semantics::kDiscrete;
    default:
      return Semantics::kUnknown;
  }
}

}  // namespace

Result<HeaderFields> read_header(std::string_view b) {
  if (b.size() < kHeaderSize) {
    return fail("too short for an MMV header (" + std::to_string(b.size()) + " bytes)");
  }
  if (std::memcmp(b.data(), "MMV\0", 4) != 0) return fail("not an MMV file (no MMV magic)");
  HeaderFields h;
  h.version = load<int32_t>(b, 4);
  h.g1 = load<uint64_t>(b, 8);
  h.g2 = load<uint64_t>(b, 16);
  return h;
}

Result<Layout> parse_layout(std::string_view b) {
  ASSIGN_OR_RETURN(HeaderFields h, read_header(b));
  if (h.version < 1 || h.version > 3) {
    return fail("unsupported MMV version " + std::to_string(h.version) + " (hearth reads 1, 2, 3)");
  }
  if (!ready(h)) return fail("not ready: a writer is initialising it (generations differ)", EAGAIN);
  Layout L;
  L.version = h.version;
  L.generation = h.g1;
  int32_t tocs = load<int32_t>(b, 24);
  L.flags = load<uint32_t>(b, 28);
  L.pid = load<int32_t>(b, 32);
  L.cluster = load<int32_t>(b, 36);
  if (tocs < 1 || tocs > kMaxTocs) {
    return fail("bad table of contents count " + std::to_string(tocs));
  }
  const uint64_t toc_end = kHeaderSize + static_cast<uint64_t>(tocs) * kTocSize;
  if (toc_end > b.size()) return fail("table of contents is past the end of the file");

  const bool v1 = h.version == 1;
  Section sec[kTocKinds];
  for (int i = 0; i < tocs; ++i) {
    uint64_t at = kHeaderSize + static_cast<uint64_t>(i) * kTocSize;
    int32_t type = load<int32_t>(b, at);
    int32_t count = load<int32_t>(b, at + 4);
    uint64_t offset = load<uint64_t>(b, at + 8);
    if (type < 1 || type >= kTocKinds) {
      return fail("unknown section type " + std::to_string(type) + " in the table of contents");
    }
    Section& s = sec[type];
    if (s.present) return fail(std::string("two ") + toc_name(type) + " sections");
    if (count < 0) {
      return fail(std::string(toc_name(type)) + " section has a negative count " +
                  std::to_string(count));
    }
    static const size_t v1_sizes[] = {0,          kIndomSize,  kInstance1Size, kMetric1Size,
                                      kValueSize, kStringSize, kLabelSize};
    s.present = true;
    s.offset = offset;
    s.count = static_cast<uint64_t>(count);
    s.entry = v1_sizes[type];
    if (!v1 && type == kInstances) s.entry = kInstance2Size;
    if (!v1 && type == kMetrics) s.entry = kMetric2Size;
    // count < 2^31 and entry <= 256: bytes() cannot overflow.
    if (s.offset > b.size() || s.bytes() > b.size() - s.offset) {
      return fail(std::string(toc_name(type)) + " section [" + hex(s.offset) + ", +" +
                  std::to_string(s.bytes()) + ") is past the end of the file (" +
                  std::to_string(b.size()) + " bytes)");
    }
    if (s.count > 0 && s.offset < toc_end) {
      return fail(std::string(toc_name(type)) + " section overlaps the header");
    }
  }
  for (int i = 1; i < kTocKinds; ++i) {
    for (int j = i + 1; j < kTocKinds; ++j) {
      const Section &x = sec[i], &y = sec[j];
      if (x.count == 0 || y.count == 0) continue;
      if (x.offset < y.offset + y.bytes() && y.offset < x.offset + x.bytes()) {
        return fail(std::string(toc_name(i)) + " and " + toc_name(j) + " sections overlap");
      }
    }
  }
  if (sec[kValues].count > 0 && sec[kValues].offset % 8 != 0) {
    return fail("values section at " + hex(sec[kValues].offset) + " is not 8-byte aligned");
  }

  // Indoms.
  const Section& si = sec[kIndoms];
  L.indoms.reserve(si.count);
  for (uint64_t i = 0; i < si.count; ++i) {
    uint64_t at = si.offset + i * kIndomSize;
    Indom d;
    d.serial = load<uint32_t>(b, at);
    ASSIGN_OR_RETURN(d.short_help,
                     text_at(b, load<uint64_t>(b, at + 16), kStringSize, "indom help"));
    ASSIGN_OR_RETURN(d.long_help,
                     text_at(b, load<uint64_t>(b, at + 24), kStringSize, "indom help"));
    L.indoms.push_back(std::move(d));
  }
  // Instances: each names its indom by the offset of the indom's entry.
  const Section& sn = sec[kInstances];
  L.instances.reserve(sn.count);
  for (uint64_t i = 0; i < sn.count; ++i) {
    uint64_t at = sn.offset + i * sn.entry;
    Instance in;
    std::optional<uint64_t> d = si.index_of(load<uint64_t>(b, at));
    if (!d) return fail("instance " + std::to_string(i) + " names no indom entry");
    in.indom = *d;
    in.internal = load<int32_t>(b, at + 12);
    if (v1) {
      in.name = inline_text(b, at + 16, kNameMax);
    } else {
      ASSIGN_OR_RETURN(in.name,
                       text_at(b, load<uint64_t>(b, at + 16), kStringSize, "instance name"));
    }
    L.instances.push_back(std::move(in));
  }
  // Metrics.
  const Section& sm = sec[kMetrics];
  L.metrics.reserve(sm.count);
  for (uint64_t i = 0; i < sm.count; ++i) {
    uint64_t at = sm.offset + i * sm.entry;
    Metric m;
    uint64_t f = at;  // fields after the name
    if (v1) {
      m.name = inline_text(b, at, kNameMax);
      f = at + kNameMax;
    } else {
      ASSIGN_OR_RETURN(m.name, text_at(b, load<uint64_t>(b, at), kStringSize, "metric name"));
      f = at + 8;
    }
    m.item = load<uint32_t>(b, f);
    std::optional<Type> t = decode_type(load<int32_t>(b, f + 4));
    if (!t) {
      return fail("metric " + std::to_string(i) + " has unknown type " +
                  std::to_string(load<int32_t>(b, f + 4)));
    }
    m.type = *t;
    m.semantics = decode_semantics(load<int32_t>(b, f + 8));
    m.units = decode_units(load<uint32_t>(b, f + 12));
    m.indom = load<uint32_t>(b, f + 16);
    ASSIGN_OR_RETURN(m.short_help,
                     text_at(b, load<uint64_t>(b, f + 24), kStringSize, "metric help"));
    ASSIGN_OR_RETURN(m.long_help,
                     text_at(b, load<uint64_t>(b, f + 32), kStringSize, "metric help"));
    L.metrics.push_back(std::move(m));
  }
  // Values: each names its metric and instance by entry offsets.
  const Section& sv = sec[kValues];
  L.slots.reserve(sv.count);
  L.min_size = toc_end;
  if (sv.count > 0) L.min_size = std::max(L.min_size, sv.offset + sv.bytes());
  for (uint64_t i = 0; i < sv.count; ++i) {
    uint64_t at = sv.offset + i * kValueSize;
    Slot s;
    s.offset = at;
    std::optional<uint64_t> m = sm.index_of(load<uint64_t>(b, at + 16));
    if (!m) return fail("value " + std::to_string(i) + " names no metric entry");
    s.metric = *m;
    const Metric& metric = L.metrics[s.metric];
    uint64_t inst = load<uint64_t>(b, at + 24);
    if (inst != 0) {
      std::optional<uint64_t> n = sn.index_of(inst);
      if (!n) return fail("value " + std::to_string(i) + " names no instance entry");
      const Instance& in = L.instances[*n];
      if (L.indoms[in.indom].serial != metric.indom) {
        return fail("value " + std::to_string(i) + " of " + shown(metric.name) +
                    ": its instance belongs to another indom");
      }
      s.instance = static_cast<int64_t>(*n);
    }
    if (metric.type == Type::kString) {
      int64_t off = load<int64_t>(b, at + 8);
      if (off <= 0 || static_cast<uint64_t>(off) >= b.size()) {
        return fail("string value " + std::to_string(i) + " of " + shown(metric.name) +
                    " is outside the file");
      }
      s.string_at = static_cast<uint64_t>(off);
      s.string_max = static_cast<uint32_t>(std::min<uint64_t>(kStringSize, b.size() - s.string_at));
      L.min_size = std::max(L.min_size, s.string_at + s.string_max);
    }
    L.slots.push_back(s);
  }
  // Labels (v3).
  const Section& sl = sec[kLabels];
  L.labels.reserve(sl.count);
  for (uint64_t i = 0; i < sl.count; ++i) {
    uint64_t at = sl.offset + i * kLabelSize;
    Label l;
    l.flags = load<uint32_t>(b, at);
    l.identity = load<uint32_t>(b, at + 4);
    l.internal = load<int32_t>(b, at + 8);
    l.json = inline_text(b, at + 12, kLabelMax);
    L.labels.push_back(std::move(l));
  }
  return L;
}

}  // namespace hearth::mmv
