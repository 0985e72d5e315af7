// The MMV series TSV's writer (formats/series_tsv.h): whole lines, fields escaped.
#include <cstdio>

#include "common/text_fields.h"
#include "formats/series_tsv.h"

namespace hearth::series {
namespace {

void append_tab_escaped(std::string* out, std::string_view text) {
  out->push_back('\t');
  append_escaped(out, text);
}

}  // namespace

void append_escaped(std::string* out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
}

std::string escape_field(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(&out, text);
  return out;
}

void append_header(std::string* out, uint64_t interval_ns, std::string_view clock) {
  *out += kSeriesMagic;
  text::append_decimal(out, kSeriesFormatVersion);
  *out += "\n# interval_ns\t";
  text::append_decimal(out, interval_ns);
  *out += "\n# clock";
  append_tab_escaped(out, clock);
  *out += '\n';
  *out += kSeriesColumns;
  *out += '\n';
}

void append_series(std::string* out, const SeriesInfo& s) {
  *out += "# series\t";
  text::append_decimal(out, s.id);
  append_tab_escaped(out, s.name);
  for (const auto& [key, value] : s.attrs) {
    *out += '\t';
    *out += key;
    *out += '=';
    append_escaped(out, value);
  }
  *out += '\n';
}

void append_metric(std::string* out, const MetricInfo& m) {
  *out += "# metric\t";
  text::append_decimal(out, m.series);
  append_tab_escaped(out, m.name);
  *out += '\t';
  *out += type_name(m.type);
  *out += '\t';
  *out += semantics_name(m.semantics);
  append_tab_escaped(out, m.units);
  append_tab_escaped(out, m.indom);
  append_tab_escaped(out, m.help);
  *out += '\n';
}

void append_label(std::string* out, const LabelInfo& l) {
  *out += "# label\t";
  text::append_decimal(out, l.series);
  append_tab_escaped(out, l.target);
  append_tab_escaped(out, l.json);
  *out += '\n';
}

void append_event(std::string* out, const EventInfo& e) {
  *out += "# event\t";
  text::append_decimal(out, e.time_ns);
  *out += '\t';
  if (e.series != 0) text::append_decimal(out, e.series);
  append_tab_escaped(out, e.kind);
  append_tab_escaped(out, e.detail);
  *out += '\n';
}

void append_row(std::string* out, uint64_t time_ns, uint64_t series, std::string_view metric,
                std::string_view instance, std::string_view value) {
  text::append_decimal(out, time_ns);
  *out += '\t';
  text::append_decimal(out, series);
  append_tab_escaped(out, metric);
  append_tab_escaped(out, instance);
  append_tab_escaped(out, value);
  *out += '\n';
}

}  // namespace hearth::series
