// The MMV series TSV's reader (formats/series_tsv.h).
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/file_io.h"
#include "common/text_fields.h"
#include "formats/series_tsv.h"

namespace hearth::series {
namespace {

using text::parse_i64;
using text::parse_u64;
using text::shown;
using text::split_tabs;

// Decimal or exponent notation as std::to_chars writes it, or nan / inf / -inf.
bool parse_float(std::string_view s, double* v) {
  if (s == "nan" || s == "-nan") {
    *v = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (s == "inf" || s == "-inf") {
    *v = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
      return false;
    }
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*v);
}

std::optional<ValueType> parse_type(std::string_view s) {
  for (int t = 0; t <= static_cast<int>(ValueType::kElapsed); ++t) {
    if (s == type_name(static_cast<ValueType>(t))) return static_cast<ValueType>(t);
  }
  return std::nullopt;
}

std::optional<Semantics> parse_semantics(std::string_view s) {
  for (int t = 0; t <= static_cast<int>(Semantics::kUnknown); ++t) {
    if (s == semantics_name(static_cast<Semantics>(t))) return static_cast<Semantics>(t);
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : lines_(text, path) {
    file_.path = path;
    file_.instances.emplace_back();
    instance_ids_.emplace("", 0);
  }
  Result<SeriesFile> run();

 private:
  std::unexpected<Error> error(const std::string& message) const { return lines_.error(message); }
  Result<void> header(std::string_view line);
  Result<void> declaration(std::string_view line);
  Result<void> row(std::string_view line);
  Result<std::string> field(std::string_view what, std::string_view raw) const;
  Result<uint64_t> series_ref(std::string_view raw, bool may_be_empty) const;

  text::Lines lines_;
  bool have_interval_ = false, have_clock_ = false, have_columns_ = false;
  SeriesFile file_;
  std::map<uint64_t, size_t> series_ids_;                            // id -> index
  std::map<std::pair<uint64_t, std::string>, uint32_t> metric_ids_;  // (series, name) -> index
  std::unordered_map<std::string, uint32_t> instance_ids_;
  std::unordered_map<std::string, uint64_t> string_ids_;
};

Result<std::string> Parser::field(std::string_view what, std::string_view raw) const {
  std::optional<std::string> s = unescape_field(raw);
  if (!s) return error(std::string(what) + " " + shown(raw) + " has a bad escape");
  return std::move(*s);
}

Result<uint64_t> Parser::series_ref(std::string_view raw, bool may_be_empty) const {
  if (may_be_empty && raw.empty()) return uint64_t{0};
  uint64_t id = 0;
  if (!parse_u64(raw, &id)) return error("series " + shown(raw) + " is not a number");
  if (!series_ids_.contains(id)) {
    return error("series " + std::to_string(id) + " is used before its `# series` line");
  }
  return id;
}

// Lines 2.. before the column names: `# interval_ns N`, `# clock NAME`, other comments.
Result<void> Parser::header(std::string_view line) {
  if (line == kSeriesColumns) {
    if (!have_interval_ || !have_clock_) {
      return error("the header lacks `# interval_ns` or `# clock` before the column names");
    }
    have_columns_ = true;
    return {};
  }
  if (!line.starts_with('#')) {
    return error("expected the column names `time_ns series metric instance value`, found " +
                 shown(line));
  }
  std::vector<std::string_view> f = split_tabs(line);
  if (f[0] == "# interval_ns") {
    if (have_interval_) return error("`# interval_ns` appears twice");
    if (f.size() != 2 || !parse_u64(f[1], &file_.interval_ns)) {
      return error("`# interval_ns` needs one number of ns");
    }
    have_interval_ = true;
  } else if (f[0] == "# clock") {
    if (have_clock_) return error("`# clock` appears twice");
    if (f.size() != 2 || f[1].empty()) return error("`# clock` needs one name");
    ASSIGN_OR_RETURN(file_.clock, field("clock", f[1]));
    have_clock_ = true;
  }
  return {};
}

Result<void> Parser::declaration(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  if (f[0] == "# series") {
    if (f.size() < 3) return error("`# series` needs ID NAME [KEY=VALUE...]");
    SeriesInfo s;
    if (!parse_u64(f[1], &s.id) || s.id == 0) {
      return error("series id " + shown(f[1]) + " is not a number above 0");
    }
    if (series_ids_.contains(s.id)) {
      return error("series " + std::to_string(s.id) + " is declared twice");
    }
    ASSIGN_OR_RETURN(s.name, field("series name", f[2]));
    for (size_t i = 3; i < f.size(); ++i) {
      size_t eq = f[i].find('=');
      if (eq == 0 || eq == std::string_view::npos) {
        return error("series attribute " + shown(f[i]) + " is not KEY=VALUE");
      }
      ASSIGN_OR_RETURN(std::string value, field("series attribute", f[i].substr(eq + 1)));
      s.attrs.emplace_back(std::string(f[i].substr(0, eq)), std::move(value));
    }
    series_ids_.emplace(s.id, file_.series.size());
    file_.series.push_back(std::move(s));
  } else if (f[0] == "# metric") {
    if (f.size() != 8) {
      return error("`# metric` needs 7 fields: SERIES NAME TYPE SEMANTICS UNITS INDOM HELP, not " +
                   std::to_string(f.size() - 1));
    }
    MetricInfo m;
    ASSIGN_OR_RETURN(m.series, series_ref(f[1], false));
    ASSIGN_OR_RETURN(m.name, field("metric name", f[2]));
    if (m.name.empty()) return error("a metric has an empty name");
    std::optional<ValueType> type = parse_type(f[3]);
    if (!type)
      return error("unknown metric type " + shown(f[3]) +
                   " (i32 u32 i64 u64 float "
                   "double string elapsed)");
    std::optional<Semantics> sem = parse_semantics(f[4]);
    if (!sem) return error("unknown semantics " + shown(f[4]) + " (counter instant discrete)");
    m.type = *type, m.semantics = *sem;
    ASSIGN_OR_RETURN(m.units, field("units", f[5]));
    uint64_t serial = 0;
    if (!f[6].empty() && !parse_u64(f[6], &serial)) {
      return error("instance domain " + shown(f[6]) + " is not a number");
    }
    m.indom = std::string(f[6]);
    ASSIGN_OR_RETURN(m.help, field("help", f[7]));
    auto [it, fresh] = metric_ids_.emplace(std::pair{m.series, m.name},
                                           static_cast<uint32_t>(file_.metrics.size()));
    if (!fresh) return error("metric " + shown(m.name) + " is declared twice in its series");
    if (file_.metrics.size() >= UINT32_MAX) return error("too many metrics");
    file_.metrics.push_back(std::move(m));
  } else if (f[0] == "# label") {
    if (f.size() != 4) return error("`# label` needs 3 fields: SERIES TARGET JSON");
    LabelInfo l;
    ASSIGN_OR_RETURN(l.series, series_ref(f[1], false));
    ASSIGN_OR_RETURN(l.target, field("label target", f[2]));
    ASSIGN_OR_RETURN(l.json, field("label", f[3]));
    file_.labels.push_back(std::move(l));
  } else if (f[0] == "# event") {
    if (f.size() != 5) return error("`# event` needs 4 fields: TIME SERIES KIND DETAIL");
    EventInfo e;
    if (!parse_u64(f[1], &e.time_ns))
      return error("event time " + shown(f[1]) + " is not a number");
    ASSIGN_OR_RETURN(e.series, series_ref(f[2], true));
    if (f[3].empty()) return error("an event has no kind");
    ASSIGN_OR_RETURN(e.kind, field("event kind", f[3]));
    ASSIGN_OR_RETURN(e.detail, field("event detail", f[4]));
    file_.events.push_back(std::move(e));
  }
  return {};  // other `#` lines: ignored (newer writers may add some)
}

Result<void> Parser::row(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  if (f.size() != 5) {
    return error(
        "a row needs 5 tab-separated fields (time_ns series metric instance value), "
        "not " +
        std::to_string(f.size()));
  }
  Point p;
  if (!parse_u64(f[0], &p.time_ns)) return error("time " + shown(f[0]) + " is not a number");
  ASSIGN_OR_RETURN(uint64_t series, series_ref(f[1], false));
  ASSIGN_OR_RETURN(std::string name, field("metric", f[2]));
  auto m = metric_ids_.find({series, name});
  if (m == metric_ids_.end()) {
    return error("metric " + shown(name) + " of series " + std::to_string(series) +
                 " has no `# metric` line before it");
  }
  p.metric = m->second;
  ASSIGN_OR_RETURN(std::string instance, field("instance", f[3]));
  auto [inst, fresh] =
      instance_ids_.emplace(std::move(instance), static_cast<uint32_t>(file_.instances.size()));
  if (fresh) {
    if (file_.instances.size() >= UINT32_MAX) return error("too many instances");
    file_.instances.push_back(inst->first);
  }
  p.instance = inst->second;

  const MetricInfo& metric = file_.metrics[p.metric];
  std::string_view v = f[4];
  auto bad = [&](std::string_view what) {
    return error(std::string(type_name(metric.type)) + " value " + shown(v) + " of " +
                 shown(metric.name) + " is not " + std::string(what));
  };
  int64_t i = 0;
  switch (metric.type) {
    case ValueType::kI32:
      if (!parse_i64(v, INT32_MIN, INT32_MAX, &i)) return bad("a 32-bit signed integer");
      p.value = static_cast<double>(i), p.exact = static_cast<uint64_t>(i);
      break;
    case ValueType::kI64:
    case ValueType::kElapsed:
      if (!parse_i64(v, INT64_MIN, INT64_MAX, &i)) return bad("a 64-bit signed integer");
      p.value = static_cast<double>(i), p.exact = static_cast<uint64_t>(i);
      break;
    case ValueType::kU32:
      if (!parse_u64(v, &p.exact) || p.exact > UINT32_MAX) return bad("a 32-bit unsigned integer");
      p.value = static_cast<double>(p.exact);
      break;
    case ValueType::kU64:
      if (!parse_u64(v, &p.exact)) return bad("a 64-bit unsigned integer");
      p.value = static_cast<double>(p.exact);
      break;
    case ValueType::kFloat:
    case ValueType::kDouble:
      if (!parse_float(v, &p.value)) return bad("a number");
      break;
    case ValueType::kString: {
      ASSIGN_OR_RETURN(std::string text, field("value", v));
      auto [s, added] = string_ids_.emplace(std::move(text), file_.strings.size());
      if (added) file_.strings.push_back(s->first);
      p.value = std::numeric_limits<double>::quiet_NaN();
      p.exact = s->second;
      break;
    }
  }
  file_.points.push_back(p);
  return {};
}

Result<SeriesFile> Parser::run() {
  std::string_view line;
  if (!lines_.next(&line) || !line.starts_with(kSeriesMagic)) {
    return lines_.error_at(
        1, "not an MMV series file: expected `# hearth mmv.series 1` first, found " + shown(line));
  }
  uint64_t version = 0;
  if (!parse_u64(line.substr(kSeriesMagic.size()), &version)) {
    return error("the format version " + shown(line.substr(kSeriesMagic.size())) +
                 " is not a number");
  }
  if (version != kSeriesFormatVersion) {
    return error("mmv.series version " + std::to_string(version) +
                 " is not supported (this hearth reads version " +
                 std::to_string(kSeriesFormatVersion) + ")");
  }
  file_.version = static_cast<int>(version);
  while (lines_.next(&line)) {
    if (line.empty()) continue;
    if (!have_columns_) {
      RETURN_IF_ERROR(header(line));
    } else if (line.starts_with('#')) {
      RETURN_IF_ERROR(declaration(line));
    } else {
      RETURN_IF_ERROR(row(line));
    }
  }
  if (!have_columns_) {
    return lines_.error_at(lines_.number() + 1, "the file ends before the column names line");
  }
  return std::move(file_);
}

}  // namespace

const char* type_name(ValueType t) {
  constexpr const char* kNames[] = {"i32",   "u32",    "i64",    "u64",
                                    "float", "double", "string", "elapsed"};
  return kNames[static_cast<int>(t)];
}

const char* semantics_name(Semantics s) {
  constexpr const char* kNames[] = {"counter", "instant", "discrete", "unknown"};
  return kNames[static_cast<int>(s)];
}

std::optional<std::string> unescape_field(std::string_view f) {
  std::string out;
  out.reserve(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '\\') {
      out += f[i];
      continue;
    }
    if (++i == f.size()) return std::nullopt;
    switch (f[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        if (i + 2 >= f.size()) return std::nullopt;
        unsigned v = 0;
        auto [ptr, ec] = std::from_chars(f.data() + i + 1, f.data() + i + 3, v, 16);
        if (ec != std::errc() || ptr != f.data() + i + 3) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

bool looks_like_series(std::string_view text) {
  return text.starts_with(kSeriesMagic);
}

Result<SeriesFile> parse_series_tsv(std::string_view text, const std::string& path) {
  return Parser(text, path).run();
}

Result<SeriesFile> read_series_tsv(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_series_tsv(text, path);
}

}  // namespace hearth::series
