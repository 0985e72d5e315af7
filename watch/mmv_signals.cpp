#include "watch/mmv_signals.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <unordered_map>

#include <deque>

#include "collectors/mmv/mmv_file.h"
#include "collectors/mmv/mmv_watch.h"
#include "common/clock.h"
#include "formats/series_tsv.h"

namespace hearth::watch {

namespace {

struct Value {
  std::string file;      // the file's name
  std::string metric;    // as in the file
  std::string instance;  // "" without an instance domain
  double value = 0;
};

struct OpenFile {
  mmv::MmvFile file;
  uint64_t series = 0;  // its id in the series TSV
  mmv::Snapshot snap;
  // Counters: the raw value and time of the last read, by slot.
  std::unordered_map<size_t, std::pair<double, int64_t>> last;
};

}  // namespace

struct MmvSignals::Impl {
  std::vector<std::string> named;
  std::vector<std::string> also;  // read whoever writes them
  // The files of PCP's directory written by the processes, as last found: looked for again
  // (every file of the directory opened) only when the directory or the processes changed, and
  // every kRescanNs (a file still being written by its writer when last looked at).
  std::vector<std::string> found;
  std::vector<pid_t> found_for;
  std::filesystem::file_time_type found_mtime{};
  int64_t found_at_ns = 0;
  bool scanned = false;
  std::map<std::string, std::unique_ptr<OpenFile>> open;  // by path
  std::vector<Value> values;
  std::set<std::string> bad;  // paths said to be unreadable (once each, until read again)
  std::vector<std::string> problems;
  // The series TSV: every file opened is a series (declared once); each read's rows, kept.
  std::string declarations;
  uint64_t next_series = 1;
  std::deque<std::pair<uint64_t, std::string>> rows;  // (CLOCK_REALTIME ns, its rows' lines)
  size_t row_count = 0;
};

namespace {

std::string indom_field(uint32_t indom) {
  return indom == 0 || indom == 0xffffffffu ? std::string() : std::to_string(indom);
}

// The series TSV's declaration of OF (named NAME, at PATH) and its metrics.
std::string declare(const OpenFile& of, const std::string& name, const std::string& path) {
  const mmv::Layout& L = of.file.layout();
  std::string out;
  series::append_series(&out, {of.series, name,
                               {{"version", std::to_string(L.version)},
                                {"pid", std::to_string(L.pid)},
                                {"path", path}}});
  for (const mmv::Metric& m : L.metrics) {
    series::append_metric(&out, {of.series, m.name, m.type, m.semantics, mmv::units_text(m.units),
                                 indom_field(m.indom), m.short_help});
  }
  return out;
}

}  // namespace

MmvSignals::MmvSignals(std::vector<std::string> named) : impl_(std::make_unique<Impl>()) {
  impl_->named = std::move(named);
}
MmvSignals::MmvSignals(MmvSignals&&) noexcept = default;
MmvSignals& MmvSignals::operator=(MmvSignals&&) noexcept = default;
MmvSignals::~MmvSignals() = default;

void MmvSignals::read(const std::vector<pid_t>& pids, int64_t t_ns) {
  Impl& s = *impl_;
  std::set<std::string> paths;
  const std::string dir = mmv::default_mmv_dir();
  if (s.named.empty()) {
    constexpr int64_t kRescanNs = 10'000'000'000;
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(dir, ec);
    if (!s.scanned || pids != s.found_for || mtime != s.found_mtime ||
        t_ns - s.found_at_ns >= kRescanNs) {
      s.found.clear();
      for (const mmv::Source& src : mmv::sources_written_by(dir, pids)) s.found.push_back(src.path);
      s.found_for = pids;
      s.found_mtime = mtime;
      s.found_at_ns = t_ns;
      s.scanned = true;
    }
    paths.insert(s.found.begin(), s.found.end());
  } else if (auto sources = mmv::resolve_sources(s.named, dir)) {
    paths = mmv::source_files(*sources);
  } else if (s.bad.insert("--mmv").second) {
    s.problems.push_back(sources.error().message);
  }
  for (const std::string& p : s.also) {
    if (std::filesystem::exists(p)) paths.insert(p);
  }
  std::erase_if(s.open, [&](const auto& kv) { return !paths.contains(kv.first); });
  s.values.clear();
  for (const std::string& path : paths) {
    auto it = s.open.find(path);
    if (it == s.open.end()) {
      auto f = mmv::MmvFile::open(path);
      if (!f) {
        if (f.error().errnum != EAGAIN && s.bad.insert(path).second)
          s.problems.push_back(f.error().message);
        continue;
      }
      s.bad.erase(path);
      it = s.open.emplace(path, std::make_unique<OpenFile>(OpenFile{std::move(*f), s.next_series++,
                                                                    {}, {}}))
               .first;
      s.declarations +=
          declare(*it->second, std::filesystem::path(path).filename().string(), path);
    }
    OpenFile& of = *it->second;
    const mmv::SnapshotStatus st = of.file.snapshot(&of.snap);
    if (st == mmv::SnapshotStatus::kReplaced || st == mmv::SnapshotStatus::kGone) {
      s.open.erase(it);  // opened again at the next read: a new series, counters start again
      continue;
    }
    if (st != mmv::SnapshotStatus::kOk) continue;
    const mmv::Layout& layout = of.file.layout();
    const std::string name = std::filesystem::path(path).filename().string();
    std::string lines;
    for (size_t i = 0; i < layout.slots.size() && i < of.snap.samples.size(); ++i) {
      const mmv::Sample& sample = of.snap.samples[i];
      if (!sample.present) continue;
      const mmv::Slot& slot = layout.slots[i];
      const mmv::Metric& m = layout.metrics[slot.metric];
      std::string_view instance =
          slot.instance >= 0 ? std::string_view(layout.instances[static_cast<size_t>(slot.instance)].name)
                             : std::string_view();
      series::append_row(&lines, of.snap.time_ns, of.series, m.name, instance,
                         m.type == mmv::Type::kString ? sample.text : mmv::format_value(m, sample));
      ++s.row_count;
    }
    if (!lines.empty()) s.rows.emplace_back(of.snap.time_ns, std::move(lines));
    for (size_t i = 0; i < layout.slots.size() && i < of.snap.samples.size(); ++i) {
      const mmv::Slot& slot = layout.slots[i];
      const mmv::Metric& m = layout.metrics[slot.metric];
      const mmv::Sample& sample = of.snap.samples[i];
      if (!sample.present) continue;
      double v = mmv::value_as_double(m, sample);
      if (std::isnan(v)) continue;
      if (m.semantics == mmv::Semantics::kCounter) {
        auto [prev, added] = of.last.try_emplace(i, v, t_ns);
        const auto [was, at] = prev->second;
        prev->second = {v, t_ns};
        if (added || t_ns <= at || v < was) continue;  // no rate yet (or the counter went back)
        v = (v - was) / (static_cast<double>(t_ns - at) / 1e9);
      }
      std::string instance =
          slot.instance >= 0 ? layout.instances[static_cast<size_t>(slot.instance)].name : "";
      s.values.push_back({name, m.name, std::move(instance), v});
    }
  }
}

std::optional<std::vector<double>> MmvSignals::values(const std::string& metric,
                                                      const std::string& instance) const {
  std::vector<double> out;
  bool found = false;
  for (const Value& v : impl_->values) {
    const bool named = v.metric == metric ||
                       (metric.size() == v.file.size() + 1 + v.metric.size() &&
                        metric.starts_with(v.file) && metric[v.file.size()] == '.' &&
                        metric.ends_with(v.metric));
    if (!named) continue;
    found = true;
    if (instance.empty() || v.instance == instance) out.push_back(v.value);
  }
  if (!found || out.empty()) return std::nullopt;
  return out;
}

void MmvSignals::also_read(const std::string& path) {
  if (std::find(impl_->also.begin(), impl_->also.end(), path) == impl_->also.end())
    impl_->also.push_back(path);
}

void MmvSignals::forget_before(uint64_t real_ns) {
  Impl& s = *impl_;
  while (!s.rows.empty() && s.rows.front().first < real_ns) {
    s.row_count -= static_cast<size_t>(std::count(s.rows.front().second.begin(),
                                                  s.rows.front().second.end(), '\n'));
    s.rows.pop_front();
  }
}

std::string MmvSignals::series_tsv(uint64_t interval_ns) const {
  const Impl& s = *impl_;
  std::string out;
  series::append_header(&out, interval_ns, "realtime");
  out += s.declarations;
  for (const auto& [t, lines] : s.rows) out += lines;
  return out;
}

size_t MmvSignals::rows() const {
  return impl_->row_count;
}

size_t MmvSignals::files() const {
  return impl_->open.size();
}

std::vector<std::string> MmvSignals::take_problems() {
  return std::exchange(impl_->problems, {});
}

}  // namespace hearth::watch
