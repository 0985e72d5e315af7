// The MMV series that `hearth mmv` writes (README, "MMV series"), as the render side sees it:
// declarations (series, metrics, labels), values, and events. Plain data, built by
// read_series_tsv (series_reader.h); the metrics chart reads it. Never includes collectors/:
// the two sides meet only through the text format.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hearth::series {

enum class ValueType : uint8_t { kI32, kU32, kI64, kU64, kFloat, kDouble, kString, kElapsed };
enum class Semantics : uint8_t { kCounter, kInstant, kDiscrete, kUnknown };

// `# series ID NAME KEY=VALUE…`: one file from its opening until it is replaced or removed.
struct SeriesInfo {
  uint64_t id = 0;   // > 0, unique in the file
  std::string name;  // the MMV file's name
  std::vector<std::pair<std::string, std::string>> attrs;  // version=3, flags=…, pid=…, in order
};

// `# metric SERIES NAME TYPE SEMANTICS UNITS INDOM HELP`.
struct MetricInfo {
  uint64_t series = 0;
  std::string name;
  ValueType type = ValueType::kI64;
  Semantics semantics = Semantics::kInstant;
  std::string units;  // PCP's notation ("Kbyte / sec", "count x 10^3"); empty: dimensionless
  std::string indom;  // the instance domain's serial as written; empty: no instances
  std::string help;
};

// `# label SERIES TARGET JSON` (MMV v3).
struct LabelInfo {
  uint64_t series = 0;
  std::string target;  // "file", "item=1", "indom=2 instance=3", …
  std::string json;
};

// `# event TIME SERIES KIND DETAIL`.
struct EventInfo {
  uint64_t time_ns = 0;
  uint64_t series = 0;  // 0: none (an error about a file no series was opened for)
  std::string kind;     // "error" "gone" "replaced" "stale" "alive" "skipped", or newer kinds
  std::string detail;
};

// One data row: a value of (metric, instance) at a snapshot.
struct Point {
  uint64_t time_ns = 0;
  uint32_t metric = 0;    // index into SeriesFile::metrics (which also names the series)
  uint32_t instance = 0;  // index into SeriesFile::instances; 0 is "" (no instance)
  // Numbers: the value (NaN, ±inf as written). Strings: NaN.
  double value = 0;
  // Integer types and elapsed: the exact value's 64 bits (i32/i64/elapsed as two's complement
  // int64, u32/u64 as uint64). Strings: index into SeriesFile::strings. Floats: 0.
  uint64_t exact = 0;
};

struct SeriesFile {
  std::string path;
  int version = 0;
  uint64_t interval_ns = 0;  // `# interval_ns`; 0: not given
  std::string clock;         // "realtime" (time_ns is CLOCK_REALTIME ns), "relative", …
  std::vector<SeriesInfo> series;  // declaration order
  std::vector<MetricInfo> metrics;  // declaration order
  std::vector<LabelInfo> labels;
  std::vector<EventInfo> events;     // file order
  std::vector<std::string> instances;  // [0] is ""; each name once
  std::vector<std::string> strings;    // string values, each distinct text once
  std::vector<Point> points;           // file order
};

// Names as the TSV writes them: "i32" … "elapsed"; "counter" "instant" "discrete" "unknown".
const char* type_name(ValueType t);
const char* semantics_name(Semantics s);

}  // namespace hearth::series
