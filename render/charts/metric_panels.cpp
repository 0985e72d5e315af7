#include "render/charts/metric_panels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace hearth::charts {
namespace {

using series::Point;
using series::SeriesFile;

// One value of one (panel, instance), with the order of its series in the file.
struct Raw {
  size_t series = 0;  // index into SeriesFile::series
  uint64_t t = 0;
  const Point* p = nullptr;
};

// Whether a counter's B is below A (a reset or a wrap), exactly for integers.
bool went_down(series::ValueType type, const Point& a, const Point& b) {
  switch (type) {
    case series::ValueType::kU32:
    case series::ValueType::kU64:
      return b.exact < a.exact;
    case series::ValueType::kI32:
    case series::ValueType::kI64:
    case series::ValueType::kElapsed:
      return static_cast<int64_t>(b.exact) < static_cast<int64_t>(a.exact);
    default:
      return b.value < a.value;
  }
}

// B - A as a double, exact in integers before the conversion.
double increase(series::ValueType type, const Point& a, const Point& b) {
  switch (type) {
    case series::ValueType::kU32:
    case series::ValueType::kU64:
      return static_cast<double>(b.exact - a.exact);
    case series::ValueType::kI32:
    case series::ValueType::kI64:
    case series::ValueType::kElapsed:
      return static_cast<double>(static_cast<uint64_t>(b.exact) - static_cast<uint64_t>(a.exact));
    default:
      return b.value - a.value;
  }
}

// Whether a line must break between A and B: another series, a snapshot of their series in
// between that had no value for them (SENTINEL), or a gap of more than 1.5 intervals (the
// snapshots in between were skipped).
bool gap_between(const Raw& a, const Raw& b, const std::vector<std::vector<uint64_t>>& snaps,
                 uint64_t interval_ns) {
  if (a.series != b.series) return true;
  const std::vector<uint64_t>& times = snaps[a.series];
  auto it = std::upper_bound(times.begin(), times.end(), a.t);
  if (it != times.end() && *it < b.t) return true;
  return interval_ns > 0 && static_cast<double>(b.t - a.t) > 1.5 * static_cast<double>(interval_ns);
}

void widen(Panel* p, double v) {
  if (p->empty) {
    p->min = p->max = v;
    p->empty = false;
  } else {
    p->min = std::min(p->min, v);
    p->max = std::max(p->max, v);
  }
}

void build_line(const SeriesFile& f, const series::MetricInfo& m, std::vector<Raw>& raws,
                const std::vector<std::vector<uint64_t>>& snaps, double start, Panel* panel,
                PanelLine* line, size_t line_index) {
  std::stable_sort(raws.begin(), raws.end(), [](const Raw& a, const Raw& b) {
    return std::tie(a.series, a.t) < std::tie(b.series, b.t);
  });
  if (panel->kind == PanelKind::kStrings) {
    const std::string* last = nullptr;
    for (const Raw& r : raws) {
      const std::string& v = f.strings[r.p->exact];
      if (last && *last == v) continue;
      panel->changes.push_back({static_cast<double>(r.t) - start, line_index, v});
      last = &v;
    }
    return;
  }
  std::vector<PanelPoint> run;
  auto close = [&] {
    if (!run.empty()) line->runs.push_back(std::move(run));
    run.clear();
  };
  const Raw* prev = nullptr;
  for (const Raw& r : raws) {
    if (!std::isfinite(r.p->value)) {  // NaN or inf as written: nothing to draw
      close();
      prev = nullptr;
      continue;
    }
    bool gap = prev && gap_between(*prev, r, snaps, f.interval_ns);
    if (gap) close();
    double t = static_cast<double>(r.t) - start;
    // Values so large that axis arithmetic would overflow (1e306 - -1e308) are not drawn:
    // no real metric reaches them, and a damaged file must not break the picture.
    auto drawable = [](double v) { return std::isfinite(v) && std::fabs(v) < 1e200; };
    std::optional<double> v;  // the point this snapshot gives, if any
    if (!panel->rate) {
      v = r.p->value * panel->unit.factor;
    } else if (prev && !gap && r.t > prev->t) {
      if (went_down(m.type, *prev->p, *r.p)) {
        ++line->resets;
        close();
      } else {
        double per_s =
            increase(m.type, *prev->p, *r.p) / (static_cast<double>(r.t - prev->t) / 1e9);
        v = per_s * panel->unit.factor;
      }
    } else if (prev && r.t <= prev->t) {
      continue;  // the same snapshot time again: no interval to divide by; keep the first
    }
    if (v) {
      if (!drawable(*v)) {
        close();
        prev = nullptr;
        continue;
      }
      run.push_back({t, *v});
      widen(panel, *v);
    }
    prev = &r;
  }
  close();
}

}  // namespace

PanelSet build_panels(const std::vector<SeriesFile>& files, const PanelOptions& o) {
  PanelSet out;
  uint64_t start = std::numeric_limits<uint64_t>::max(), end = 0;
  for (const SeriesFile& f : files) {
    for (const Point& p : f.points)
      start = std::min(start, p.time_ns), end = std::max(end, p.time_ns);
    for (const series::EventInfo& e : f.events) {
      start = std::min(start, e.time_ns), end = std::max(end, e.time_ns);
    }
    if (std::find(out.clocks.begin(), out.clocks.end(), f.clock) == out.clocks.end()) {
      out.clocks.push_back(f.clock);
    }
  }
  if (start > end) start = end = 0;
  out.start_ns = start;
  out.span_ns = static_cast<double>(end - start);
  const double start_d = static_cast<double>(start);

  // (file, series name, metric name) -> panel; several series of one file (a replaced file)
  // share their panels.
  std::map<std::tuple<size_t, std::string, std::string>, size_t> panel_of_key;
  std::set<std::string> instance_names;
  std::vector<std::map<uint32_t, std::vector<Raw>>> values;  // by panel: instance -> values
  std::vector<std::pair<size_t, const series::MetricInfo*>> panel_metric;  // by panel
  std::set<std::tuple<size_t, std::string, std::string>> matched, unmatched;

  for (size_t fi = 0; fi < files.size(); ++fi) {
    const SeriesFile& f = files[fi];
    std::map<uint64_t, size_t> series_index;
    for (size_t i = 0; i < f.series.size(); ++i) series_index[f.series[i].id] = i;
    std::vector<size_t> panel_of_metric(f.metrics.size(), SIZE_MAX);
    for (size_t mi = 0; mi < f.metrics.size(); ++mi) {
      const series::MetricInfo& m = f.metrics[mi];
      const std::string& sname = f.series[series_index[m.series]].name;
      auto key = std::make_tuple(fi, sname, m.name);
      if (o.metrics && !o.metrics->search(m.name)) {
        unmatched.insert(key);
        continue;
      }
      matched.insert(key);
      if (auto it = panel_of_key.find(key); it != panel_of_key.end()) {
        panel_of_metric[mi] = it->second;
        continue;
      }
      if (out.panels.size() >= o.max_panels) continue;
      Panel p;
      p.title = m.name;
      p.file = sname;
      p.help = m.help;
      p.semantics = series::semantics_name(m.semantics);
      p.unit = parse_pcp_units(m.units);
      p.pcp_units = m.units;
      if (m.type == series::ValueType::kString) {
        p.kind = PanelKind::kStrings;
      } else if (m.semantics == series::Semantics::kCounter) {
        p.rate = true;
        p.unit = rate_unit(p.unit);
        p.pcp_units = (m.units.empty() ? std::string("count") : m.units) + " / sec";
      } else if (m.semantics == series::Semantics::kDiscrete) {
        p.kind = PanelKind::kSteps;
      }
      panel_of_key.emplace(key, out.panels.size());
      panel_of_metric[mi] = out.panels.size();
      out.panels.push_back(std::move(p));
      values.emplace_back();
      panel_metric.emplace_back(fi, &m);
    }
    for (const Point& p : f.points) {
      size_t panel = panel_of_metric[p.metric];
      if (panel == SIZE_MAX) continue;
      size_t s = series_index[f.metrics[p.metric].series];
      values[panel][p.instance].push_back({s, p.time_ns, &p});
    }
    for (const series::EventInfo& e : f.events) {
      if (e.series == 0) {
        out.notes.push_back(e.kind + ": " + e.detail);
        continue;
      }
      const std::string& sname = f.series[series_index[e.series]].name;
      for (auto& [key, panel] : panel_of_key) {
        if (std::get<0>(key) == fi && std::get<1>(key) == sname) {
          out.panels[panel].events.push_back(
              {static_cast<double>(e.time_ns) - start_d, e.kind, e.detail});
        }
      }
    }
  }
  out.metrics = matched.size();
  out.filtered_out = unmatched.size();

  for (size_t pi = 0; pi < out.panels.size(); ++pi) {
    const SeriesFile& f = files[panel_metric[pi].first];
    for (const auto& [inst, raws] : values[pi]) instance_names.insert(f.instances[inst]);
  }
  out.instances.assign(instance_names.begin(), instance_names.end());

  // Snapshot times of each series of each file: when it had any value.
  std::vector<std::vector<std::vector<uint64_t>>> snaps_of(files.size());
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const SeriesFile& f = files[fi];
    std::map<uint64_t, size_t> series_index;
    for (size_t i = 0; i < f.series.size(); ++i) series_index[f.series[i].id] = i;
    std::vector<std::vector<uint64_t>>& snaps = snaps_of[fi];
    snaps.resize(f.series.size());
    for (const Point& p : f.points)
      snaps[series_index[f.metrics[p.metric].series]].push_back(p.time_ns);
    for (std::vector<uint64_t>& t : snaps) {
      std::sort(t.begin(), t.end());
      t.erase(std::unique(t.begin(), t.end()), t.end());
    }
  }
  for (size_t pi = 0; pi < out.panels.size(); ++pi) {
    const SeriesFile& f = files[panel_metric[pi].first];
    const std::vector<std::vector<uint64_t>>& snaps = snaps_of[panel_metric[pi].first];
    Panel& panel = out.panels[pi];
    // Lines by instance name (the map's keys are instance ids, in first-seen order).
    std::vector<std::pair<std::string, uint32_t>> order;
    for (const auto& [inst, raws] : values[pi]) order.emplace_back(f.instances[inst], inst);
    std::sort(order.begin(), order.end());
    for (const auto& [name, inst] : order) {
      PanelLine line;
      line.instance = name;
      line.color =
          static_cast<size_t>(std::lower_bound(out.instances.begin(), out.instances.end(), name) -
                              out.instances.begin());
      build_line(f, *panel_metric[pi].second, values[pi][inst], snaps, start_d, &panel, &line,
                 panel.lines.size());
      panel.lines.push_back(std::move(line));
    }
    if (panel.kind == PanelKind::kStrings) panel.empty = panel.changes.empty();
  }
  return out;
}

}  // namespace hearth::charts
