#include "render/charts/charts.h"

#include <cmath>

#include "render/charts/bars.h"
#include "render/charts/sections.h"

namespace hearth::charts {
namespace {

std::string base_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

bool same_recording(const sched_tsv::Header& a, const sched_tsv::Header& b) {
  return a.window_start_ns == b.window_start_ns && a.window_end_ns == b.window_end_ns &&
         a.targets == b.targets;
}

// The first file of KIND among FILES from the same recording as OF, or null.
const sched_tsv::SchedFile* companion(const std::vector<sched_tsv::SchedFile>& files,
                                      const sched_tsv::SchedFile& of, sched_tsv::FileKind kind) {
  for (const sched_tsv::SchedFile& f : files) {
    if (f.header.kind == kind && same_recording(f.header, of.header)) return &f;
  }
  return nullptr;
}

// FILES with every thread in NAMES named so.
std::vector<sched_tsv::SchedFile> renamed(const std::vector<sched_tsv::SchedFile>& files,
                                          const std::map<int64_t, std::string>& names) {
  std::vector<sched_tsv::SchedFile> out = files;
  auto rename = [&names](int64_t tid, std::string* comm) {
    if (auto it = names.find(tid); it != names.end()) *comm = it->second;
  };
  for (sched_tsv::SchedFile& f : out) {
    for (auto& t : f.states) rename(t.tid, &t.comm);
    for (auto& t : f.tenancy) rename(t.tid, &t.comm);
    for (auto& t : f.wakeups) rename(t.tid, &t.comm);
    for (auto& p : f.preemptors) {
      rename(p.tid, &p.comm);
      rename(p.preemptor_tid, &p.preemptor_comm);
    }
  }
  return out;
}

}  // namespace

std::optional<SortKey> parse_sort_key(std::string_view name) {
  if (name == "runnable") return SortKey::kRunnable;
  if (name == "on_cpu") return SortKey::kOnCpu;
  if (name == "blocked") return SortKey::kBlocked;
  if (name == "name") return SortKey::kName;
  if (name == "tid") return SortKey::kTid;
  return std::nullopt;
}

scene::Scene layout_charts(const std::vector<sched_tsv::SchedFile>& files_in, const ChartOptions& o,
                           ChartStats* stats) {
  std::vector<sched_tsv::SchedFile> named;
  if (!o.thread_names.empty()) named = renamed(files_in, o.thread_names);
  const std::vector<sched_tsv::SchedFile>& files = o.thread_names.empty() ? files_in : named;
  ChartStats local;
  ChartStats& st = stats ? *stats : local;
  st = {};

  std::vector<Section> sections;
  for (sched_tsv::FileKind kind : {sched_tsv::FileKind::kStates, sched_tsv::FileKind::kTenancy,
                                   sched_tsv::FileKind::kPreemptors}) {
    for (const sched_tsv::SchedFile& f : files) {
      if (f.header.kind != kind) continue;
      switch (kind) {
        case sched_tsv::FileKind::kStates: {
          const sched_tsv::SchedFile* pre = companion(files, f, sched_tsv::FileKind::kPreemptors);
          const sched_tsv::SchedFile* wk = companion(files, f, sched_tsv::FileKind::kWakeups);
          sections.push_back(states_section(f, pre, wk, o));
          break;
        }
        case sched_tsv::FileKind::kTenancy:
          sections.push_back(tenancy_by_thread_section(f, o));
          sections.push_back(tenancy_by_cpu_section(f, o));
          break;
        default:
          sections.push_back(preemptors_section(f, o));
      }
    }
  }
  // Wakeups have no chart of their own (yet): they only annotate a states chart.
  for (const sched_tsv::SchedFile& f : files) {
    if (f.header.kind != sched_tsv::FileKind::kWakeups) continue;
    bool used = false;
    for (const sched_tsv::SchedFile& s : files) {
      used = used || (s.header.kind == sched_tsv::FileKind::kStates &&
                      companion(files, s, sched_tsv::FileKind::kWakeups) == &f);
    }
    if (!used) st.skipped.push_back(base_name(f.path));
  }

  scene::Scene s;
  s.kind = "chart";
  s.width = o.width;
  s.font_size = 11;
  s.background_top = s.background_bottom = {0xfb, 0xfb, 0xfb};
  s.data = {{"sections", std::to_string(sections.size())}};

  std::string title = o.title;
  if (title.empty()) {
    title = "Scheduler";
    if (!files.empty()) {
      std::string targets;
      for (const std::string& t : files.front().header.targets) {
        targets += (targets.empty() ? "" : ", ") + t;
      }
      if (!targets.empty()) title += ": " + targets;
    }
  }
  scene::Text t;
  t.x = std::floor(o.width / 2), t.y = 26, t.text = title, t.size = 17, t.bold = true;
  t.anchor = scene::Anchor::kMiddle;
  t.id = "title";
  s.texts.push_back(std::move(t));

  double y = 40;
  for (size_t i = 0; i < sections.size(); ++i) {
    draw_section(sections[i], static_cast<int>(i), &s, &y);
    st.bars += sections[i].bars.size();
  }
  st.sections = sections.size();
  s.height = std::ceil(y);
  return s;
}

}  // namespace hearth::charts
