// `hearth mmv`'s outputs: the MMV series TSV (its lines are formats/series_tsv.h's; this is the
// watcher's sink that feeds them what the MMV files declare and hold) and the one-snapshot
// table for people.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "collectors/mmv/mmv_watch.h"
#include "formats/series_tsv.h"

namespace hearth::mmv {

struct TsvOptions {
  uint64_t interval_ns = 0;
  // Times relative to the first snapshot, rounded to whole intervals; no paths, pids or
  // generations: output that depends on the files' contents only (diffs, golden tests).
  bool reproducible = false;
};

// A SeriesSink that writes the series TSV through WRITE (called with whole lines, in order).
class SeriesTsvWriter : public SeriesSink {
 public:
  SeriesTsvWriter(TsvOptions options, std::function<void(std::string_view)> write);
  void on_series(const Series& series) override;
  void on_values(const Series& series, const Snapshot& snapshot) override;
  void on_event(uint64_t time_ns, const Series* series, const std::string& path, EventKind kind,
                std::string_view detail) override;
  uint64_t rows() const { return rows_; }

 private:
  uint64_t time_of(uint64_t t);

  TsvOptions options_;
  std::function<void(std::string_view)> write_;
  uint64_t first_ns_ = 0;
  bool started_ = false;
  uint64_t rows_ = 0;
  std::string line_;
};

// One snapshot as an aligned table: "FILE" headings, then METRIC [INSTANCE]  VALUE  UNITS
// SEMANTICS, and the short help when WITH_HELP.
std::string format_table(const Series& series, const Snapshot& snapshot, bool with_help);

}  // namespace hearth::mmv
