#include "collectors/mmv/series_output.h"

#include <algorithm>
#include <cstdio>

namespace hearth::mmv {
namespace {

std::string flags_text(uint32_t f) {
  std::string s;
  auto add = [&](uint32_t bit, const char* name) {
    if (!(f & bit)) return;
    if (!s.empty()) s += ',';
    s += name;
  };
  add(kFlagNoPrefix, "noprefix");
  add(kFlagProcess, "process");
  add(kFlagSentinel, "sentinel");
  if (s.empty()) s = "none";
  return s;
}

// What a v3 label is attached to, from PCP's PM_LABEL_* bits.
std::string label_target(const Label& l) {
  if (l.flags & 0x20) {
    return "indom=" + std::to_string(l.identity) + " instance=" + std::to_string(l.internal);
  }
  if (l.flags & 0x10) return "item=" + std::to_string(l.identity);
  if (l.flags & 0x08) return "cluster=" + std::to_string(l.identity);
  if (l.flags & 0x04) return "indom=" + std::to_string(l.identity);
  return "file";
}

std::string indom_text(uint32_t indom) {
  return indom == 0 || indom == 0xffffffffu ? std::string() : std::to_string(indom);
}

}  // namespace

SeriesTsvWriter::SeriesTsvWriter(TsvOptions options, std::function<void(std::string_view)> write)
    : options_(options), write_(std::move(write)) {
  std::string h;
  series::append_header(&h, options_.interval_ns, options_.reproducible ? "relative" : "realtime");
  write_(h);
}

uint64_t SeriesTsvWriter::time_of(uint64_t t) {
  if (!options_.reproducible) return t;
  if (!started_) {
    started_ = true;
    first_ns_ = t;
  }
  uint64_t rel = t >= first_ns_ ? t - first_ns_ : 0;
  // To the nearest whole interval: the same input gives the same text on every run.
  if (options_.interval_ns > 0) {
    rel = (rel + options_.interval_ns / 2) / options_.interval_ns * options_.interval_ns;
  }
  return rel;
}

void SeriesTsvWriter::on_series(const Series& s) {
  const Layout& L = s.file.layout();
  series::SeriesInfo info{s.id, s.name, {}};
  info.attrs = {{"version", std::to_string(L.version)}, {"flags", flags_text(L.flags)}};
  if (!options_.reproducible) {
    info.attrs.emplace_back("pid", std::to_string(L.pid));
    info.attrs.emplace_back("generation", std::to_string(L.generation));
    info.attrs.emplace_back("path", s.file.path());
  }
  std::string out;
  series::append_series(&out, info);
  for (const Metric& m : L.metrics) {
    series::append_metric(&out, {s.id, m.name, m.type, m.semantics, units_text(m.units),
                                 indom_text(m.indom), m.short_help});
  }
  for (const Label& l : L.labels) series::append_label(&out, {s.id, label_target(l), l.json});
  write_(out);
}

void SeriesTsvWriter::on_values(const Series& s, const Snapshot& snap) {
  const Layout& L = s.file.layout();
  const uint64_t t = time_of(snap.time_ns);
  line_.clear();
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const Sample& v = snap.samples[i];
    if (!v.present) continue;  // SENTINEL "no value", or a torn string
    const Slot& slot = L.slots[i];
    const Metric& m = L.metrics[slot.metric];
    std::string_view instance =
        slot.instance >= 0 ? std::string_view(L.instances[slot.instance].name) : std::string_view();
    if (m.type == Type::kString) {
      series::append_row(&line_, t, s.id, m.name, instance, v.text);
    } else {
      series::append_row(&line_, t, s.id, m.name, instance, format_value(m, v));
    }
    ++rows_;
  }
  write_(line_);
}

void SeriesTsvWriter::on_event(uint64_t time_ns, const Series* s, const std::string& path,
                               EventKind kind, std::string_view detail) {
  series::EventInfo e{time_of(time_ns), s ? s->id : 0, event_name(kind), {}};
  if (!s) {  // about a file no series was opened for: the event names it
    std::string p = path;
    if (options_.reproducible) {
      size_t slash = p.rfind('/');
      if (slash != std::string::npos) p = p.substr(slash + 1);
    }
    e.detail = p + ": ";
  }
  std::string d(detail);
  if (options_.reproducible && !s) {  // the message starts with the full path: name only
    size_t at = d.find(path);
    if (at == 0) d = d.substr(path.size());
    if (d.starts_with(": ")) d = d.substr(2);
  }
  e.detail += d;
  std::string out;
  series::append_event(&out, e);
  write_(out);
}

std::string format_table(const Series& s, const Snapshot& snap, bool with_help) {
  const Layout& L = s.file.layout();
  struct Row {
    std::string name, value, units, sem, help;
  };
  std::vector<Row> rows;
  size_t wn = 6, wv = 5;
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const Slot& slot = L.slots[i];
    const Metric& m = L.metrics[slot.metric];
    Row r;
    r.name = series::escape_field(m.name);
    if (slot.instance >= 0)
      r.name += " [" + series::escape_field(L.instances[slot.instance].name) + "]";
    const Sample& v = snap.samples[i];
    r.value = v.present ? series::escape_field(format_value(m, v)) : "(no value)";
    if (m.type == Type::kString && v.present) r.value = "\"" + r.value + "\"";
    r.units = units_text(m.units);
    r.sem = semantics_name(m.semantics);
    if (with_help) r.help = series::escape_field(m.short_help);
    wn = std::max(wn, r.name.size());
    wv = std::max(wv, r.value.size());
    rows.push_back(std::move(r));
  }
  std::string out = s.name + " (MMV v" + std::to_string(L.version) + ", " +
                    std::to_string(L.metrics.size()) + " metrics, " +
                    std::to_string(L.slots.size()) + " values";
  if (L.flags & kFlagProcess) out += ", pid " + std::to_string(L.pid);
  if (s.stale) out += ", STALE: writer gone";
  out += ")\n";
  for (const Row& r : rows) {
    out += "  " + r.name + std::string(wn - r.name.size() + 2, ' ');
    std::string pad(wv - r.value.size(), ' ');
    out += pad + r.value + "  " + r.sem;
    if (!r.units.empty()) out += "  " + r.units;
    if (!r.help.empty()) out += "  # " + r.help;
    out += "\n";
  }
  return out;
}

}  // namespace hearth::mmv
