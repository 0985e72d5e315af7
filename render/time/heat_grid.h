// The subsecond-offset heatmap's model: timed stack samples (formats/timed_samples.h) counted
// into a grid of time cells. Each column is one span of time (1 s by default), cut into ROWS
// slices of ROW_NS each (20 ms by default); a thread-sample at time T (since time 0) falls in
// column T / (ROWS * ROW_NS) and row (T mod (ROWS * ROW_NS)) / ROW_NS. Each cell counts its
// thread-samples by state class. The static picture (heat_picture.h), the page (heat_page.h)
// and the folded output of a time range read it; templates/heatmap_counts.js counts the same way.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "formats/timed_samples.h"

namespace hearth::heat {

// What a cell counts, by the thread's state in the sample (/proc's letters). A stack sample's
// R is running or runnable alike: the samples cannot tell them apart (the scheduler tracer
// can).
enum class StateClass : uint8_t {
  kRunning = 0,   // R: on a CPU or waiting for one
  kBlocked = 1,   // D: uninterruptible (disk I/O, some kernel locks)
  kSleeping = 2,  // S: interruptible sleep (futex, poll, read on a socket, ...)
  kOther = 3,     // anything else: T t X Z P I W K ...
};
inline constexpr size_t kStateClasses = 4;
StateClass state_class(char state);

// The grid's geometry.
struct Layout {
  uint64_t row_ns = 20'000'000;  // one cell's span (--bucket)
  uint32_t rows = 50;            // cells per column (--rows); a column spans rows * row_ns
  uint32_t columns = 0;          // enough for the last sample
  // Why, when some of it was chosen: "the defaults", "samples every 100 ms", "a recording of
  // 1 h", "the 1 s column" (with --bucket or --rows alone); "" when both were given.
  std::string chosen;
  uint64_t column_ns() const { return row_ns * rows; }
};

// The recording's span: the last sample's time plus one sampling interval (ns), and that
// interval: the median gap between successive samples of one process (0 with fewer than two).
struct Span {
  uint64_t duration_ns = 0;
  uint64_t interval_ns = 0;
};
Span span_of(const timed_samples::Samples& samples);

// Recordings up to this long get 1 s columns by default; longer ones 1 min columns.
inline constexpr uint64_t kLongRecordingNs = 15ull * 60 * 1'000'000'000;
// The most cells a grid may have (the page draws each one).
inline constexpr uint64_t kMaxCells = 4'000'000;

// The layout for SAMPLES given --bucket ROW_NS and --rows ROWS (0: choose). Chosen: columns of
// 1 s (1 min beyond kLongRecordingNs); rows of 20 ms (1 s), or of the sampling interval rounded
// up to a step that divides the column when samples are sparser than that (a 10 Hz recording:
// 100 ms rows), so rows are not mostly empty. Fails when the grid would pass kMaxCells.
Result<Layout> choose_layout(const timed_samples::Samples& samples, uint64_t row_ns,
                             uint32_t rows);

struct Grid {
  Layout layout;
  // counts[class][column * rows + row]: thread-samples of that state class in the cell.
  std::array<std::vector<uint32_t>, kStateClasses> counts;
  uint64_t samples = 0;    // thread-samples counted (after the thread filter)
  uint32_t max_cell = 0;   // the largest cell total
  size_t threads = 0;      // threads counted (Samples::threads entries passing the filter)
  uint32_t total(size_t cell) const;
};

// Counts every thread-sample of SAMPLES whose thread root ONLY_THREADS matches (nullptr: all)
// into LAYOUT's cells.
Grid build_grid(const timed_samples::Samples& samples, const Layout& layout,
                const Pattern* only_threads);

// The folded stacks (root;frames COUNT, one line per distinct stack, sorted) of the
// thread-samples taken at FROM_NS <= time < TO_NS whose thread root ONLY_THREADS matches: what
// `hearth flame` draws for that range, and what the page's range flamegraph draws.
// STATE: only the thread-samples of that state class (nullopt: all).
std::string range_folded(const timed_samples::Samples& samples, uint64_t from_ns, uint64_t to_ns,
                         const Pattern* only_threads,
                         std::optional<StateClass> state = std::nullopt);

// "20 ms", "1 s", "1 min", "250 µs", "0 s": a duration for people (exact for the steps here).
std::string duration_text(uint64_t ns);

// Parses "20ms", "1s", "500us", "2min", "1h", "100ns" (a plain number: ms); 0 on failure.
uint64_t parse_duration(const std::string& text);

}  // namespace hearth::heat
