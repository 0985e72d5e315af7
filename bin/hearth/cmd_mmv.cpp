#include "bin/hearth/cmd_mmv.h"

#include "bin/hearth/input_checks.h"
#include "bin/hearth/mmv_notices.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "collectors/mmv/mmv_watch.h"
#include "collectors/mmv/series_output.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/shutdown.h"

namespace hearth::cli {
namespace {

void print_line(const std::string& line) {
  std::fprintf(stderr, "hearth mmv: %s\n", line.c_str());
}

// Files going bad and coming back go to stderr through MmvNotices (a bounded number of lines),
// stale writers as they happen; the rest (replaced, gone, skipped) only into the TSV, which also
// gets every error.
class TeeSink : public mmv::SeriesSink {
 public:
  TeeSink(mmv::SeriesSink* tsv, bool table, bool help)
      : tsv_(tsv), table_(table), help_(help), notices_(print_line) {}
  void on_series(const mmv::Series& s) override {
    ++series_;
    if (tsv_) tsv_->on_series(s);
  }
  void on_values(const mmv::Series& s, const mmv::Snapshot& snap) override {
    ++snapshots_;
    if (tsv_) tsv_->on_values(s, snap);
    if (table_) table_text_ += mmv::format_table(s, snap, help_) + "\n";
  }
  void on_event(uint64_t t, const mmv::Series* s, const std::string& path, mmv::EventKind k,
                std::string_view detail) override {
    if (k == mmv::EventKind::kStale) {
      print_line(path + ": stale: " + std::string(detail));
    } else {
      notices_.on_event(t, path, k, detail);
    }
    if (tsv_) tsv_->on_event(t, s, path, k, detail);
  }
  MmvNotices& notices() { return notices_; }
  size_t series() const { return series_; }
  size_t snapshots() const { return snapshots_; }
  const std::string& table_text() const { return table_text_; }

 private:
  mmv::SeriesSink* tsv_;
  bool table_;
  bool help_;
  size_t series_ = 0;
  size_t snapshots_ = 0;
  std::string table_text_;
  MmvNotices notices_;
};

}  // namespace

std::vector<std::string> validate_mmv(const MmvArgs& a) {
  std::vector<std::string> problems;
  if (!(a.interval >= 0.001 && a.interval <= 86400)) {
    problems.push_back("-i must be between 0.001 and 86400 seconds");
  }
  if (a.count < 0) problems.push_back("-n must be 0 or more");
  if (!(a.duration >= 0 && a.duration <= 7 * 24 * 3600)) {
    problems.push_back("-d must be between 0 and a week (in seconds)");
  }
  return problems;
}

int run_mmv(const MmvArgs& a) {
  std::vector<std::string> problems = validate_mmv(a);
  Result<std::vector<mmv::Source>> sources = mmv::resolve_sources(a.inputs, mmv::default_mmv_dir());
  if (!sources) problems.push_back(sources.error().message);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth mmv: %s\n", p.c_str());
    return 2;
  }
  const bool to_stdout = a.output.empty() || a.output == "-";
  std::set<std::string> files = mmv::source_files(*sources);
  if (!outputs_are_new("mmv", {files.begin(), files.end()}, {to_stdout ? "-" : a.output})) {
    return 2;
  }
  const bool table = a.count == 1 && to_stdout && isatty(STDOUT_FILENO);
  const int count =
      a.count == 0 && a.duration == 0 && !table && to_stdout && isatty(STDOUT_FILENO) ? 0 : a.count;

  std::optional<AtomicFile> out;
  std::unique_ptr<mmv::SeriesTsvWriter> tsv;
  if (!table) {
    Result<AtomicFile> f = AtomicFile::create(to_stdout ? "-" : a.output);
    if (!f) {
      std::fprintf(stderr, "hearth mmv: %s\n", f.error().message.c_str());
      return 1;
    }
    out.emplace(std::move(*f));
    mmv::TsvOptions o;
    o.interval_ns = static_cast<uint64_t>(std::llround(a.interval * 1e9));
    o.reproducible = a.reproducible;
    tsv = std::make_unique<mmv::SeriesTsvWriter>(o, [&](std::string_view s) { out->write(s); });
  }
  TeeSink sink(tsv.get(), table, a.help_text);
  mmv::Watcher watcher(std::move(*sources));
  install_shutdown_handlers();

  const uint64_t step = static_cast<uint64_t>(std::llround(a.interval * 1e9));
  const uint64_t start = monotonic_ns();
  const uint64_t end = a.duration > 0 ? start + static_cast<uint64_t>(a.duration * 1e9) : 0;
  uint64_t next = start;
  for (int taken = 0;;) {
    watcher.poll(sink);
    ++taken;
    if (count > 0 && taken >= count) break;
    next += step;
    if (end && next > end) break;
    while (!shutdown_requested()) {
      uint64_t now = monotonic_ns();
      if (now >= next) break;
      sleep_ns(std::min<uint64_t>(next - now, 100000000));  // re-check signals each 0.1 s
    }
    if (shutdown_requested()) break;
  }

  sink.notices().finish(watcher.troubles());
  if (table) std::fputs(sink.table_text().c_str(), stdout);
  if (out) {
    if (Result<void> r = out->commit(); !r) {
      std::fprintf(stderr, "hearth mmv: %s\n", r.error().message.c_str());
      return 1;
    }
  }
  if (sink.series() == 0) {
    std::fprintf(stderr, "hearth mmv: no readable MMV file\n");
    return 1;
  }
  return 0;
}

}  // namespace hearth::cli
