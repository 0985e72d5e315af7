#include "collectors/mmv/tsv_writer.h"

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

std::string escape_field(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (char c : t) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

TsvWriter::TsvWriter(TsvOptions options, std::function<void(std::string_view)> write)
    : options_(options), write_(std::move(write)) {
  std::string h = "# hearth mmv.series " + std::to_string(kSeriesFormatVersion) + "\n";
  h += "# interval_ns\t" + std::to_string(options_.interval_ns) + "\n";
  h += options_.reproducible ? "# clock\trelative\n" : "# clock\trealtime\n";
  h += "time_ns\tseries\tmetric\tinstance\tvalue\n";
  write_(h);
}

std::string TsvWriter::time_text(uint64_t t) {
  if (!options_.reproducible) return std::to_string(t);
  if (!started_) {
    started_ = true;
    first_ns_ = t;
  }
  uint64_t rel = t >= first_ns_ ? t - first_ns_ : 0;
  // To the nearest whole interval: the same input gives the same text on every run.
  if (options_.interval_ns > 0) {
    rel = (rel + options_.interval_ns / 2) / options_.interval_ns * options_.interval_ns;
  }
  return std::to_string(rel);
}

void TsvWriter::on_series(const Series& s) {
  const Layout& L = s.file.layout();
  std::string id = std::to_string(s.id);
  std::string out = "# series\t" + id + "\t" + escape_field(s.name) +
                    "\tversion=" + std::to_string(L.version) + "\tflags=" + flags_text(L.flags);
  if (!options_.reproducible) {
    out += "\tpid=" + std::to_string(L.pid) + "\tgeneration=" + std::to_string(L.generation) +
           "\tpath=" + escape_field(s.file.path());
  }
  out += "\n";
  for (const Metric& m : L.metrics) {
    out += "# metric\t" + id + "\t" + escape_field(m.name) + "\t" + type_name(m.type) + "\t" +
           semantics_name(m.semantics) + "\t" + units_text(m.units) + "\t" + indom_text(m.indom) +
           "\t" + escape_field(m.short_help) + "\n";
  }
  for (const Label& l : L.labels) {
    out += "# label\t" + id + "\t" + label_target(l) + "\t" + escape_field(l.json) + "\n";
  }
  write_(out);
}

void TsvWriter::on_values(const Series& s, const Snapshot& snap) {
  const Layout& L = s.file.layout();
  std::string t = time_text(snap.time_ns);
  std::string id = std::to_string(s.id);
  line_.clear();
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const Sample& v = snap.samples[i];
    if (!v.present) continue;  // SENTINEL "no value", or a torn string
    const Slot& slot = L.slots[i];
    const Metric& m = L.metrics[slot.metric];
    line_ += t;
    line_ += '\t';
    line_ += id;
    line_ += '\t';
    line_ += escape_field(m.name);
    line_ += '\t';
    if (slot.instance >= 0) line_ += escape_field(L.instances[slot.instance].name);
    line_ += '\t';
    line_ += m.type == Type::kString ? escape_field(v.text) : format_value(m, v);
    line_ += '\n';
    ++rows_;
  }
  write_(line_);
}

void TsvWriter::on_event(uint64_t time_ns, const Series* s, const std::string& path, EventKind kind,
                         std::string_view detail) {
  std::string out = "# event\t" + time_text(time_ns) + "\t" + (s ? std::to_string(s->id) : "") +
                    "\t" + event_name(kind) + "\t";
  if (!s) {
    std::string p = path;
    if (options_.reproducible) {
      size_t slash = p.rfind('/');
      if (slash != std::string::npos) p = p.substr(slash + 1);
    }
    out += escape_field(p) + ": ";
  }
  std::string d(detail);
  if (options_.reproducible && !s) {  // the message starts with the full path: name only
    size_t at = d.find(path);
    if (at == 0) d = d.substr(path.size());
    if (d.starts_with(": ")) d = d.substr(2);
  }
  out += escape_field(d) + "\n";
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
    r.name = escape_field(m.name);
    if (slot.instance >= 0) r.name += " [" + escape_field(L.instances[slot.instance].name) + "]";
    const Sample& v = snap.samples[i];
    r.value = v.present ? escape_field(format_value(m, v)) : "(no value)";
    if (m.type == Type::kString && v.present) r.value = "\"" + r.value + "\"";
    r.units = units_text(m.units);
    r.sem = semantics_name(m.semantics);
    if (with_help) r.help = escape_field(m.short_help);
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
