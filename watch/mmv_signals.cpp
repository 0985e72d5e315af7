#include "watch/mmv_signals.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "collectors/mmv/mmv_file.h"
#include "collectors/mmv/mmv_watch.h"

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
  mmv::Snapshot snap;
  // Counters: the raw value and time of the last read, by slot.
  std::unordered_map<size_t, std::pair<double, int64_t>> last;
};

}  // namespace

struct MmvSignals::Impl {
  std::vector<std::string> named;
  std::map<std::string, std::unique_ptr<OpenFile>> open;  // by path
  std::vector<Value> values;
  std::set<std::string> bad;  // paths said to be unreadable (once each, until read again)
  std::vector<std::string> problems;
};

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
    for (const mmv::Source& src : mmv::sources_written_by(dir, pids)) paths.insert(src.path);
  } else if (auto sources = mmv::resolve_sources(s.named, dir)) {
    paths = mmv::source_files(*sources);
  } else if (s.bad.insert("--mmv").second) {
    s.problems.push_back(sources.error().message);
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
      it = s.open.emplace(path, std::make_unique<OpenFile>(OpenFile{std::move(*f), {}, {}})).first;
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

size_t MmvSignals::files() const {
  return impl_->open.size();
}

std::vector<std::string> MmvSignals::take_problems() {
  return std::exchange(impl_->problems, {});
}

}  // namespace hearth::watch
