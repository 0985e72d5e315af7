#include "watch/budget.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

namespace hearth::watch {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kHourNs = 3600LL * 1000000000LL;

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f s", std::ceil(s));
  return buf;
}

// Bytes of the regular files under PATH (symbolic links not followed).
uint64_t tree_bytes(const fs::path& path) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace

std::optional<std::string> TriggerGate::refused(int64_t t_ns) const {
  if (done()) return "the " + std::to_string(budget_.total) + " reports --max-reports allows are written";
  if (last_ && budget_.cooldown_s > 0) {
    const double since = static_cast<double>(t_ns - *last_) / 1e9;
    if (since < budget_.cooldown_s)
      return "cooling down for " + seconds_text(budget_.cooldown_s - since) +
             " more after the last report";
  }
  size_t in_hour = 0;
  for (int64_t t : last_hour_) in_hour += t > t_ns - kHourNs;
  if (in_hour >= budget_.per_hour)
    return std::to_string(in_hour) + " reports in the last hour, the most --per-hour allows";
  return std::nullopt;
}

void TriggerGate::fired(int64_t t_ns) {
  last_ = t_ns;
  ++fired_;
  last_hour_.push_back(t_ns);
  while (!last_hour_.empty() && last_hour_.front() <= t_ns - kHourNs) last_hour_.pop_front();
}

std::string report_dir_name(int64_t real_ns, const std::string& rule) {
  const time_t secs = static_cast<time_t>(real_ns / 1000000000LL);
  tm utc{};
  gmtime_r(&secs, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::string name = std::string(stamp) + "-";
  for (char c : rule) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    name += ok ? c : '_';
  }
  return name;
}

bool is_report_dir_name(const std::string& name) {
  // YYYYMMDDTHHMMSSZ-…
  if (name.size() < 18 || name[8] != 'T' || name[15] != 'Z' || name[16] != '-') return false;
  for (size_t i = 0; i < 15; ++i) {
    if (i == 8) continue;
    if (name[i] < '0' || name[i] > '9') return false;
  }
  return true;
}

std::vector<std::string> enforce_disk_budget(const std::string& dir, uint64_t bytes,
                                             const std::string& keep) {
  struct Entry {
    std::string name;
    uint64_t bytes;
  };
  std::vector<Entry> reports;
  uint64_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory(ec) || e.is_symlink(ec) || !is_report_dir_name(name)) continue;
    if (!fs::is_regular_file(e.path() / "report.json", ec)) continue;
    reports.push_back({name, tree_bytes(e.path())});
    total += reports.back().bytes;
  }
  std::sort(reports.begin(), reports.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  std::vector<std::string> removed;
  for (const Entry& r : reports) {
    if (total <= bytes) break;
    if (r.name == keep) continue;
    fs::remove_all(fs::path(dir) / r.name, ec);
    if (ec) continue;
    total -= r.bytes;
    removed.push_back(r.name);
  }
  return removed;
}

}  // namespace hearth::watch
