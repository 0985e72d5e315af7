// What an MMV file (PCP's "memory mapped values", man 5 mmv) declares, decoded from its
// on-disk layout: metrics, instance domains, labels, and where each value lives in the file.
// Plain data; built by parse_layout (mmv_layout.h), read by the snapshot code and the writers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/series_tsv.h"

namespace hearth::mmv {

// Header flags (man 5 mmv).
inline constexpr uint32_t kFlagNoPrefix = 0x1;  // names are not prefixed with the file name
inline constexpr uint32_t kFlagProcess = 0x2;   // values are valid while `pid` runs
inline constexpr uint32_t kFlagSentinel = 0x4;  // all-ones / NaN / "" mean "no value"

// A metric's value type and semantics are the series TSV's (formats/series_tsv.h), and so are
// their names for people and for the TSV: "i32" "u32" "i64" "u64" "float" "double" "string"
// "elapsed"; "counter" "instant" "discrete" "unknown".
using Type = series::ValueType;
using series::Semantics;
using series::semantics_name;
using series::type_name;

// PCP's pmUnits: dimensions (powers of space, time, count) and scales (PM_SPACE_*, PM_TIME_*,
// a power of ten for count).
struct Units {
  int dim_space = 0;
  int dim_time = 0;
  int dim_count = 0;
  int scale_space = 0;  // 0 byte, 1 KiB, 2 MiB, ... 8 YiB
  int scale_time = 0;   // 0 ns, 1 µs, 2 ms, 3 s, 4 min, 5 h
  int scale_count = 0;  // 10^scale_count
};

struct Metric {
  std::string name;   // as in the file (no "mmv.FILE." prefix)
  uint32_t item = 0;  // any 32-bit value (Parfait hashes names into ids above 1023)
  Type type = Type::kI64;
  Semantics semantics = Semantics::kInstant;
  Units units;
  uint32_t indom = 0;  // serial of its instance domain; 0 or 0xffffffff: none
  std::string short_help;
  std::string long_help;
};

struct Instance {
  int32_t internal = 0;
  std::string name;  // external name; may have been stored without a NUL
  size_t indom = 0;  // index into Layout::indoms
};

struct Indom {
  uint32_t serial = 0;
  std::string short_help;
  std::string long_help;
};

// A v3 label: FLAGS says what it is attached to (PCP's PM_LABEL_* bits).
struct Label {
  uint32_t flags = 0;
  uint32_t identity = 0;  // indom serial, cluster or item, by FLAGS
  int32_t internal = 0;   // instance id, or -1 (PM_IN_NULL)
  std::string json;       // {"name":value}
};

// Where one (metric, instance) value lives.
struct Slot {
  size_t metric = 0;        // index into Layout::metrics
  int64_t instance = -1;    // index into Layout::instances; -1: the metric has no indom
  uint64_t offset = 0;      // file offset of the 32-byte value entry (8-byte aligned)
  uint64_t string_at = 0;   // strings: file offset of the text
  uint32_t string_max = 0;  // strings: bytes readable there (<= 256, within the file)
};

struct Layout {
  int version = 0;          // 1, 2 or 3
  uint64_t generation = 0;  // g1 == g2, non-zero
  uint32_t flags = 0;       // kFlag*
  int32_t pid = 0;          // the writer's process (meaningful with kFlagProcess)
  int32_t cluster = 0;
  std::vector<Indom> indoms;
  std::vector<Instance> instances;
  std::vector<Metric> metrics;
  std::vector<Label> labels;
  std::vector<Slot> slots;  // file order
  uint64_t min_size = 0;    // bytes the file must hold for every slot and string to be readable
};

// PCP's notation: "count", "byte", "Kbyte / sec", "count x 10^3", "" when dimensionless.
std::string units_text(const Units& u);

}  // namespace hearth::mmv
