// Reads the MMV series TSV (README, "MMV series") into a SeriesFile. Strict: the first line is
// `# hearth mmv.series VERSION`; every number is checked; every row and declaration names a
// series and metric declared before it; any problem is one error naming the file and line
// ("app.tsv:7: …"). Garbage input gives an error, never a crash. Thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "render/series/series_model.h"

namespace hearth::series {

inline constexpr int kSeriesFormatVersion = 1;
inline constexpr std::string_view kSeriesMagic = "# hearth mmv.series ";

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
