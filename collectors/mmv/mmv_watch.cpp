#include "collectors/mmv/mmv_watch.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/clock.h"

namespace hearth::mmv {
namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// PCP_TMP_DIR=VALUE in a pcp.conf (shell syntax; quotes stripped).
std::string tmp_dir_from_conf(const std::string& conf) {
  std::ifstream in(conf);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("PCP_TMP_DIR=")) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
      v = v.substr(1, v.size() - 2);
    }
    return v;
  }
  return std::string();
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

const char* event_name(EventKind k) {
  switch (k) {
    case EventKind::kError:
      return "error";
    case EventKind::kGone:
      return "gone";
    case EventKind::kReplaced:
      return "replaced";
    case EventKind::kStale:
      return "stale";
    case EventKind::kAlive:
      return "alive";
    case EventKind::kSkipped:
      return "skipped";
    case EventKind::kReadable:
      return "readable";
  }
  return "?";
}

std::string default_mmv_dir() {
  std::string dir;
  if (const char* e = std::getenv("PCP_TMP_DIR"); e && *e) dir = e;
  if (dir.empty()) {
    const char* conf = std::getenv("PCP_CONF");
    dir = tmp_dir_from_conf(conf && *conf ? conf : "/etc/pcp.conf");
  }
  if (dir.empty()) dir = "/var/lib/pcp/tmp";
  return dir + "/mmv";
}

Result<std::vector<Source>> resolve_sources(const std::vector<std::string>& args,
                                            const std::string& default_dir) {
  std::vector<Source> out;
  std::string problems;
  if (args.empty()) {
    if (!is_dir(default_dir)) {
      return fail(default_dir + ": no MMV directory (set PCP_TMP_DIR, or name files)");
    }
    out.push_back({default_dir, true});
    return out;
  }
  for (const std::string& a : args) {
    if (exists(a)) {
      out.push_back({a, is_dir(a)});
      continue;
    }
    if (a.find('/') == std::string::npos && !a.empty()) {
      std::string p = default_dir + "/" + a;
      if (exists(p)) {
        out.push_back({p, is_dir(p)});
        continue;
      }
      if (!problems.empty()) problems += "\n";
      problems += a + ": no such MMV file (looked in ./" + a + " and " + p + ")";
      continue;
    }
    if (!problems.empty()) problems += "\n";
    problems += a + ": no such file or directory";
  }
  if (!problems.empty()) return fail(problems, ENOENT);
  return out;
}

Watcher::Watcher(std::vector<Source> sources) : sources_(std::move(sources)) {}

std::vector<Source> sources_written_by(const std::string& dir, const std::vector<pid_t>& pids) {
  std::vector<Source> found;
  std::error_code ec;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    auto f = MmvFile::open(e.path().string());
    if (!f) continue;
    if ((f->layout().flags & kFlagProcess) &&
        std::find(pids.begin(), pids.end(), static_cast<pid_t>(f->layout().pid)) != pids.end())
      found.push_back({e.path().string(), false});
  }
  std::sort(found.begin(), found.end(),
            [](const Source& x, const Source& y) { return x.path < y.path; });
  return found;
}

std::set<std::string> source_files(const std::vector<Source>& sources) {
  std::set<std::string> files;
  for (const Source& s : sources) {
    if (!s.directory) {
      files.insert(s.path);
      continue;
    }
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(s.path, ec)) {
      std::error_code ec2;
      if (!e.is_regular_file(ec2)) continue;
      std::string name = e.path().filename().string();
      if (name.starts_with(".")) continue;
      files.insert(e.path().string());
    }
  }
  return files;
}

void Watcher::poll(SeriesSink& sink) {
  const uint64_t t = realtime_ns();
  const std::set<std::string> seen = source_files(sources_);
  // Files no longer listed (a directory's file deleted): close their series.
  for (auto it = open_.begin(); it != open_.end();) {
    if (seen.count(it->first)) {
      ++it;
      continue;
    }
    sink.on_event(t, it->second.get(), it->first, EventKind::kGone, "file removed");
    it = open_.erase(it);
  }
  // A file that left its directory while unreadable: its episode ends there.
  for (auto& [path, trouble] : troubles_) {
    if (!seen.count(path)) trouble.unreadable = false;
  }
  for (const std::string& p : seen) visit(p, sink, t, true);
}

void Watcher::visit(const std::string& path, SeriesSink& sink, uint64_t now, bool reopen) {
  auto it = open_.find(path);
  if (it != open_.end()) {
    Series& s = *it->second;
    Snapshot snap;
    switch (s.file.snapshot(&snap)) {
      case SnapshotStatus::kOk: {
        bool gone = s.file.writer_gone();
        if (gone != s.stale) {
          s.stale = gone;
          sink.on_event(now, &s, path, gone ? EventKind::kStale : EventKind::kAlive,
                        gone ? "writer pid " + std::to_string(s.file.layout().pid) + " is gone"
                             : "writer pid " + std::to_string(s.file.layout().pid) + " is back");
        }
        sink.on_values(s, snap);
        if (snap.torn_strings > 0) {
          sink.on_event(now, &s, path, EventKind::kSkipped,
                        std::to_string(snap.torn_strings) + " strings changed while copied");
        }
        return;
      }
      case SnapshotStatus::kRetry:
        sink.on_event(now, &s, path, EventKind::kSkipped, "the writer was changing the file");
        return;
      case SnapshotStatus::kGone:
        sink.on_event(now, &s, path, EventKind::kGone, "file removed");
        open_.erase(it);
        return;
      case SnapshotStatus::kReplaced:
        sink.on_event(now, &s, path, EventKind::kReplaced, "new file or generation: new series");
        open_.erase(it);
        if (!reopen) return;  // just opened and already replaced: next poll
        break;                // reopened below
    }
  }
  Result<MmvFile> f = MmvFile::open(path);
  auto trouble = troubles_.find(path);
  const bool unreadable = trouble != troubles_.end() && trouble->second.unreadable;
  if (!f) {
    const int e = f.error().errnum;
    // Still being initialised by its writer (EAGAIN), or raced with a removal (ENOENT): quiet,
    // and no episode of its own; within an episode, one more sample lost.
    if ((e == EAGAIN || e == ENOENT) && !unreadable) return;
    if (trouble == troubles_.end()) trouble = troubles_.emplace(path, Trouble{}).first;
    Trouble& t = trouble->second;
    if (!t.unreadable) {
      // Gone bad: one event, whatever the reason becomes until the file reads again.
      t.unreadable = true;
      t.reason = f.error().message;
      ++t.episodes;
      t.episode_lost = 0;
      sink.on_event(now, nullptr, path, EventKind::kError, f.error().message);
    }
    ++t.lost;
    ++t.episode_lost;
    return;
  }
  if (unreadable) {
    Trouble& t = trouble->second;
    t.unreadable = false;
    sink.on_event(now, nullptr, path, EventKind::kReadable,
                  path + ": readable again (" + std::to_string(t.episode_lost) +
                      (t.episode_lost == 1 ? " sample" : " samples") + " lost)");
  }
  auto s = std::make_unique<Series>(Series{next_id_++, base_name(path), std::move(*f), false});
  s->stale = s->file.writer_gone();
  Series& ref = *s;
  open_.emplace(path, std::move(s));
  sink.on_series(ref);
  if (ref.stale) {
    sink.on_event(now, &ref, path, EventKind::kStale,
                  "writer pid " + std::to_string(ref.file.layout().pid) + " is gone");
  }
  visit(path, sink, now, false);  // its first values
}

}  // namespace hearth::mmv
