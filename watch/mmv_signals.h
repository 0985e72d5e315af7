// The `mmv:` signals of `hearth watch`: the watched processes' MMV metrics, read straight from
// their memory-mapped files (collectors/mmv) at each evaluation, as `hearth mmv` reads them: no
// PCP daemon needed. A counter's value is its rate per second since the last read. Every read
// is also kept, as the MMV series TSV's rows (formats/series_tsv.h), until forget_before(): the
// metrics of a report from before its trigger.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearth::watch {

class MmvSignals {
 public:
  // NAMED: files, names or directories as `--mmv` takes them (empty: the files in PCP's MMV
  // directory whose writer is a watched process, looked for again at every read, so a process
  // that restarts is followed).
  explicit MmvSignals(std::vector<std::string> named);
  MmvSignals(MmvSignals&&) noexcept;
  MmvSignals& operator=(MmvSignals&&) noexcept;
  ~MmvSignals();

  // PATH is read too, whoever writes it (the watcher's own published figures).
  void also_read(const std::string& path);

  // Reads every file now. T_NS: the caller's clock (counters' rates).
  void read(const std::vector<pid_t>& pids, int64_t t_ns);

  // METRIC's values at the last read, one per instance (INSTANCE: that one only); METRIC as in
  // the file ("http.queue.depth") or with the file's name before it, as pmdammv names it
  // without its "mmv." ("hearth-sample-42.http.queue.depth"). Nothing when no file publishes it
  // (or a counter at its first read).
  std::optional<std::vector<double>> values(const std::string& metric,
                                            const std::string& instance) const;

  // The reads kept: those at or after REAL_NS (CLOCK_REALTIME) stay.
  void forget_before(uint64_t real_ns);
  // The reads kept as an MMV series TSV (clock realtime, INTERVAL_NS between reads), every file
  // read since the watcher started declared; rows() of them. Empty rows: nothing was read.
  std::string series_tsv(uint64_t interval_ns) const;
  size_t rows() const;

  // The files read at the last read, and one line per file that could not be read.
  size_t files() const;
  std::vector<std::string> take_problems();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::watch
