// The MMV series TSV `hearth mmv` and `hearth record` write (README, "MMV series"): its
// declarations (series, metrics, labels), events and values; the one writer (collectors/mmv
// feeds it what it reads from the MMV files) and the one reader (render/ charts what it reads).
// Plain data. Thread-compatible: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace hearth::series {

enum class ValueType : uint8_t { kI32, kU32, kI64, kU64, kFloat, kDouble, kString, kElapsed };
enum class Semantics : uint8_t { kCounter, kInstant, kDiscrete, kUnknown };

// `# series ID NAME KEY=VALUE…`: one file from its opening until it is replaced or removed.
struct SeriesInfo {
  uint64_t id = 0;                                         // > 0, unique in the file
  std::string name;                                        // the MMV file's name
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
  uint64_t interval_ns = 0;         // `# interval_ns`; 0: not given
  std::string clock;                // "realtime" (time_ns is CLOCK_REALTIME ns), "relative", …
  std::vector<SeriesInfo> series;   // declaration order
  std::vector<MetricInfo> metrics;  // declaration order
  std::vector<LabelInfo> labels;
  std::vector<EventInfo> events;       // file order
  std::vector<std::string> instances;  // [0] is ""; each name once
  std::vector<std::string> strings;    // string values, each distinct text once
  std::vector<Point> points;           // file order
};

// Names as the TSV writes them: "i32" … "elapsed"; "counter" "instant" "discrete" "unknown".
const char* type_name(ValueType t);
const char* semantics_name(Semantics s);

inline constexpr int kSeriesFormatVersion = 1;
inline constexpr std::string_view kSeriesMagic = "# hearth mmv.series ";
inline constexpr std::string_view kSeriesColumns = "time_ns\tseries\tmetric\tinstance\tvalue";

// --- Writing: each function appends whole lines, with their line ends, to OUT ---

// The header: `# hearth mmv.series 1`, `# interval_ns N`, `# clock CLOCK`, the column names.
void append_header(std::string* out, uint64_t interval_ns, std::string_view clock);
// `# series ID NAME KEY=VALUE…` (NAME and the values escaped).
void append_series(std::string* out, const SeriesInfo& series);
// `# metric SERIES NAME TYPE SEMANTICS UNITS INDOM HELP` (the texts escaped).
void append_metric(std::string* out, const MetricInfo& metric);
// `# label SERIES TARGET JSON`.
void append_label(std::string* out, const LabelInfo& label);
// `# event TIME SERIES KIND DETAIL` (SERIES empty when 0).
void append_event(std::string* out, const EventInfo& event);
// A data row `TIME SERIES METRIC INSTANCE VALUE`: VALUE as text (a number as the reader parses
// it for the metric's type, or a string), escaped like the names.
void append_row(std::string* out, uint64_t time_ns, uint64_t series, std::string_view metric,
                std::string_view instance, std::string_view value);

// TEXT with '\\', tab, newline and carriage return escaped as \\ \t \n \r (and other control
// bytes as \xHH), so a field never breaks the TSV.
void append_escaped(std::string* out, std::string_view text);
std::string escape_field(std::string_view text);

// --- Reading ---

// Reads the series TSV into a SeriesFile. Strict: every number is checked; every row and
// declaration names a series and metric declared before it; any problem is one error naming
// the file and line ("app.tsv:7: …"). Garbage input gives an error, never a crash.
// What is checked:
// - line 1 is `# hearth mmv.series 1`; `# interval_ns N` and `# clock NAME` (once each) and the
//   column names `time_ns series metric instance value` come before any row or declaration;
// - `# series ID NAME KEY=VALUE…`: ID a new number > 0; `# metric` (8 fields) of a declared
//   series, a known type and semantics, a name new in that series, INDOM empty or a number;
//   `# label` (4 fields) and `# event` (5 fields) of a declared series (an event's may be empty);
//   other `#` lines are ignored, as are blank lines and a '\r' before '\n';
// - a row has 5 fields; its series and metric were declared; the value parses as the metric's
//   type and fits it (i32 within ±2^31, …; floats as decimal, `nan`, `inf`, `-inf`);
// - fields are unescaped (`\\` `\t` `\n` `\r` `\xHH`); any other backslash sequence is an error.
Result<SeriesFile> parse_series_tsv(std::string_view text, const std::string& path);

// Reads and parses the file at PATH. Errors: "cannot read PATH: REASON", or as above.
Result<SeriesFile> read_series_tsv(const std::string& path);

// Whether TEXT (a file's beginning) starts with the series format's first line.
bool looks_like_series(std::string_view text);

// Escaped field -> text (nullopt: a bad escape). Exposed for tests.
std::optional<std::string> unescape_field(std::string_view field);

}  // namespace hearth::series
