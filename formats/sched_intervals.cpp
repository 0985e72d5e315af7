// The scheduler intervals' writer and reader (formats/sched_intervals.h). The reader is strict:
// any problem is one error naming the file and line.
#include "formats/sched_intervals.h"

#include <algorithm>
#include <set>

#include "common/atomic_file.h"
#include "common/file_io.h"
#include "common/text_fields.h"

namespace hearth::sched_intervals {

StateClass state_class(char state) {
  switch (state) {
    case kStateOnCpu:
      return StateClass::kOnCpu;
    case kStateRunnable:
      return StateClass::kRunnable;
    case kStateSleeping:
      return StateClass::kSleeping;
    case kStateBlocked:
      return StateClass::kBlocked;
    case kStateTraced:
      return StateClass::kStopped;
    default:
      return StateClass::kOther;
  }
}

bool valid_state(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == kStateUnknown;
}

namespace {

constexpr std::string_view kIntervalColumns = "tid\tpid\tstart_ns\tend_ns\tstate\tcpu\tby";
constexpr std::string_view kSlotColumns =
    "tid\tpid\tslot_start_ns\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tstopped_ns\t"
    "other_ns\tswitches";
constexpr size_t kIntervalFields = 7;
constexpr size_t kSlotFields = 10;

std::string_view kind_word(FileKind kind) {
  return kind == FileKind::kIntervals ? "intervals" : "slots";
}

// Bytes gathered before each write to the file.
constexpr size_t kChunk = 1 << 16;

template <typename Row, typename Append>
Result<uint64_t> write_rows(const std::string& path, const std::string& head,
                            const std::function<bool(Row*)>& next, Append append) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
  std::string buf = head;
  uint64_t rows = 0;
  Row row;
  while (next(&row)) {
    append(&buf, row);
    ++rows;
    if (buf.size() >= kChunk) {
      file.write(buf);
      buf.clear();
    }
  }
  append_end(&buf, rows);
  file.write(buf);
  RETURN_IF_ERROR(file.commit());
  return rows;
}

}  // namespace

std::string format_header(FileKind kind, const sched_tsv::SchedHeader& header, const Kept& kept,
                          const Untraced& untraced) {
  std::string out;
  sched_tsv::append_header(&out, kind_word(kind), kVersion, header);
  out += "# kept\twhole_from_ns=";
  text::append_decimal(&out, kept.whole_from_ns);
  out += "\tslot_ns=";
  text::append_decimal(&out, kept.slot_ns);
  out += '\n';
  if (untraced.until_ns != 0) {
    out += "# untraced\tuntil_ns=";
    text::append_decimal(&out, untraced.until_ns);
    out += "\tresolution_ns=";
    text::append_decimal(&out, untraced.resolution_ns);
    out += "\tsource=" + untraced.source + '\n';
  }
  out += kind == FileKind::kIntervals ? kIntervalColumns : kSlotColumns;
  out += '\n';
  return out;
}

void append_interval(std::string* out, const Interval& r) {
  text::append_decimal(out, r.tid);
  *out += '\t';
  text::append_decimal(out, r.pid);
  *out += '\t';
  text::append_decimal(out, r.start_ns);
  *out += '\t';
  text::append_decimal(out, r.end_ns);
  *out += '\t';
  *out += r.state;
  *out += '\t';
  text::append_decimal(out, r.cpu);
  *out += '\t';
  text::append_decimal(out, r.by);
  *out += '\n';
}

void append_slot(std::string* out, const Slot& r) {
  text::append_decimal(out, r.tid);
  for (uint64_t v : {static_cast<uint64_t>(r.pid), r.slot_start_ns, r.on_cpu_ns, r.runnable_ns,
                     r.sleeping_ns, r.blocked_ns, r.stopped_ns, r.other_ns, r.switches}) {
    *out += '\t';
    text::append_decimal(out, v);
  }
  *out += '\n';
}

void append_end(std::string* out, uint64_t rows) {
  *out += "# end\t";
  text::append_decimal(out, rows);
  *out += '\n';
}

Result<uint64_t> write_intervals(const std::string& path, const sched_tsv::SchedHeader& header,
                                 const Kept& kept, const std::function<bool(Interval*)>& next,
                                 const Untraced& untraced) {
  return write_rows<Interval>(path, format_header(FileKind::kIntervals, header, kept, untraced),
                              next, append_interval);
}

Result<uint64_t> write_slots(const std::string& path, const sched_tsv::SchedHeader& header,
                             const Kept& kept, const std::function<bool(Slot*)>& next,
                             const Untraced& untraced) {
  return write_rows<Slot>(path, format_header(FileKind::kSlots, header, kept, untraced), next,
                          append_slot);
}

// ---- Reading ----

namespace {

using text::parse_i64;
using text::parse_u64;
using text::shown;
using text::split_tabs;

class IntervalsParser {
 public:
  IntervalsParser(std::string_view text, const std::string& path)
      : text_(text), lines_(text, path) {
    file_.path = path;
  }

  // Parses up to the first problem; the rows before it stay in file().
  Result<void> run();
  IntervalsFile& file() { return file_; }

 private:
  std::unexpected<Error> error(const std::string& message) const { return lines_.error(message); }
  Result<void> format_line(std::string_view line);
  Result<void> header_line(std::string_view line);
  Result<void> columns_line(std::string_view line);
  Result<void> end_line(std::string_view line);
  Result<void> interval_row(const std::vector<std::string_view>& f);
  Result<void> slot_row(const std::vector<std::string_view>& f);
  Result<uint64_t> unsigned_field(std::string_view name, std::string_view v, uint64_t max) const;
  Result<int64_t> signed_field(std::string_view name, std::string_view v, int64_t max) const;
  Result<uint64_t> key_value(std::string_view field, std::string_view key,
                             std::string_view line = "kept") const;
  Result<void> untraced_line(const std::vector<std::string_view>& f);

  std::string_view text_;
  text::Lines lines_;
  IntervalsFile file_;
  std::set<std::string_view> seen_headers_;
  bool have_columns_ = false;
  bool ended_ = false;
  uint64_t rows_ = 0;
};

Result<void> IntervalsParser::format_line(std::string_view line) {
  constexpr std::string_view kPrefix = "# hearth sched.";
  if (!line.starts_with(kPrefix)) {
    return error(
        "not a hearth sched intervals file: expected `# hearth sched.intervals 1` or "
        "`# hearth sched.slots 1` first, found " +
        shown(line));
  }
  std::string_view rest = line.substr(kPrefix.size());
  size_t blank = rest.find(' ');
  std::string_view name = rest.substr(0, blank);
  if (name == "intervals") {
    file_.header.kind = FileKind::kIntervals;
  } else if (name == "slots") {
    file_.header.kind = FileKind::kSlots;
  } else {
    return error("sched." + shown(name) + " is not read here (expected intervals or slots)");
  }
  uint64_t version = 0;
  if (blank == std::string_view::npos || !parse_u64(rest.substr(blank + 1), &version)) {
    return error("sched." + std::string(name) + ": the version after the kind is missing or not " +
                 "a number");
  }
  if (version != static_cast<uint64_t>(kVersion)) {
    return error("sched." + std::string(name) + " version " + std::to_string(version) +
                 " is not supported (this hearth reads version 1)");
  }
  file_.header.version = kVersion;
  return {};
}

Result<uint64_t> IntervalsParser::key_value(std::string_view field, std::string_view key,
                                            std::string_view line) const {
  uint64_t v = 0;
  if (!field.starts_with(key) || field.size() <= key.size() || field[key.size()] != '=' ||
      !parse_u64(field.substr(key.size() + 1), &v)) {
    return error("`# " + std::string(line) + "` expects `" + std::string(key) + "=NUMBER`, found " +
                 shown(field));
  }
  return v;
}

Result<void> IntervalsParser::untraced_line(const std::vector<std::string_view>& f) {
  if (f.size() != 4) {
    return error("`# untraced` needs until_ns=N, resolution_ns=N and source=WORD");
  }
  Untraced& u = file_.header.untraced;
  ASSIGN_OR_RETURN(u.until_ns, key_value(f[1], "until_ns", "untraced"));
  ASSIGN_OR_RETURN(u.resolution_ns, key_value(f[2], "resolution_ns", "untraced"));
  constexpr std::string_view kSource = "source=";
  std::string_view word = f[3].starts_with(kSource) ? f[3].substr(kSource.size()) : "";
  const bool one_word =
      !word.empty() && word.size() <= 32 && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
  if (!one_word) return error("`# untraced` expects `source=WORD`, found " + shown(f[3]));
  if (u.until_ns == 0) return error("`# untraced`: until_ns is 0");
  if (u.resolution_ns == 0) return error("`# untraced`: resolution_ns is 0");
  u.source = std::string(word);
  return {};
}

Result<void> IntervalsParser::header_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  std::string_view key = f[0];
  if (key != "# target" && key != "# window_ns" && key != "# events" && key != "# lost" &&
      key != "# kept" && key != "# untraced") {
    return {};
  }
  if (key != "# target" && !seen_headers_.insert(key).second) {
    return error("`" + std::string(key) + "` appears twice in the header");
  }
  Header& h = file_.header;
  auto count = [&](std::string_view what, std::string_view v) -> Result<uint64_t> {
    uint64_t x = 0;
    if (!parse_u64(v, &x)) return error(std::string(what) + " " + shown(v) + " is not a number");
    return x;
  };
  if (key == "# target") {
    std::string t;
    for (size_t i = 1; i < f.size(); ++i) {
      if (i > 1) t += ' ';
      t += f[i];
    }
    h.targets.push_back(std::move(t));
  } else if (key == "# window_ns") {
    if (f.size() != 4) return error("`# window_ns` needs 3 numbers: START END DURATION");
    ASSIGN_OR_RETURN(h.window_start_ns, count("window start", f[1]));
    ASSIGN_OR_RETURN(h.window_end_ns, count("window end", f[2]));
    ASSIGN_OR_RETURN(h.window_ns, count("window duration", f[3]));
    if (h.window_end_ns < h.window_start_ns) return error("the window ends before it starts");
    if (h.window_ns != h.window_end_ns - h.window_start_ns) {
      return error("the window duration " + std::to_string(h.window_ns) + " is not END - START (" +
                   std::to_string(h.window_end_ns - h.window_start_ns) + ")");
    }
  } else if (key == "# events") {
    for (size_t i = 1; i < f.size(); ++i) {
      size_t eq = f[i].find('=');
      if (eq == 0 || eq == std::string_view::npos) {
        return error("`# events` entry " + shown(f[i]) + " is not NAME=COUNT");
      }
      ASSIGN_OR_RETURN(uint64_t n, count("event count", f[i].substr(eq + 1)));
      h.events.emplace_back(std::string(f[i].substr(0, eq)), n);
    }
  } else if (key == "# lost") {
    if (f.size() != 2) return error("`# lost` needs one number");
    ASSIGN_OR_RETURN(h.lost, count("lost count", f[1]));
  } else if (key == "# untraced") {
    RETURN_IF_ERROR(untraced_line(f));
  } else {
    if (f.size() != 3) return error("`# kept` needs whole_from_ns=N and slot_ns=N");
    ASSIGN_OR_RETURN(h.kept.whole_from_ns, key_value(f[1], "whole_from_ns"));
    ASSIGN_OR_RETURN(h.kept.slot_ns, key_value(f[2], "slot_ns"));
    if (h.kept.slot_ns == 0) return error("`# kept`: slot_ns is 0");
  }
  return {};
}

Result<void> IntervalsParser::columns_line(std::string_view line) {
  for (std::string_view required : {"# window_ns", "# lost", "# kept"}) {
    if (!seen_headers_.contains(required)) {
      return error("the header lacks a `" + std::string(required) + "` line");
    }
  }
  const Header& h = file_.header;
  if (h.kept.whole_from_ns < h.window_start_ns || h.kept.whole_from_ns > h.window_end_ns) {
    return error("`# kept`: whole_from_ns " + std::to_string(h.kept.whole_from_ns) +
                 " is outside the window");
  }
  if ((h.kept.whole_from_ns - h.window_start_ns) % h.kept.slot_ns != 0) {
    return error("`# kept`: whole_from_ns is not a whole number of slots after the window start");
  }
  const Untraced& u = h.untraced;
  if (u.until_ns != 0) {
    if (u.until_ns < h.window_start_ns || u.until_ns > h.kept.whole_from_ns) {
      return error("`# untraced`: until_ns " + std::to_string(u.until_ns) +
                   " is outside [window start, whole_from_ns]");
    }
    if ((u.until_ns - h.window_start_ns) % h.kept.slot_ns != 0) {
      return error("`# untraced`: until_ns is not a whole number of slots after the window start");
    }
  }
  std::string_view want = h.kind == FileKind::kIntervals ? kIntervalColumns : kSlotColumns;
  if (line != want) {
    std::string names(want);
    std::replace(names.begin(), names.end(), '\t', ' ');
    return error("expected the column names `" + names + "`, found " + shown(line));
  }
  return {};
}

Result<uint64_t> IntervalsParser::unsigned_field(std::string_view name, std::string_view v,
                                                 uint64_t max) const {
  uint64_t x = 0;
  if (!parse_u64(v, &x)) {
    return error(std::string(name) + " " + shown(v) + " is not a non-negative integer");
  }
  if (x > max) return error(std::string(name) + " " + std::to_string(x) + " is too large");
  return x;
}

Result<int64_t> IntervalsParser::signed_field(std::string_view name, std::string_view v,
                                              int64_t max) const {
  int64_t x = 0;
  if (!parse_i64(v, -1, max, &x)) {
    return error(std::string(name) + " " + shown(v) + " is not an integer from -1 to " +
                 std::to_string(max));
  }
  return x;
}

Result<void> IntervalsParser::interval_row(const std::vector<std::string_view>& f) {
  constexpr auto kTidMax = static_cast<uint64_t>(sched_tsv::kMaxTid);
  Interval r;
  ASSIGN_OR_RETURN(uint64_t tid, unsigned_field("tid", f[0], kTidMax));
  if (tid == 0) return error("tid 0 (the idle task) has no intervals");
  ASSIGN_OR_RETURN(uint64_t pid, unsigned_field("pid", f[1], kTidMax));
  r.tid = static_cast<int64_t>(tid);
  r.pid = static_cast<int64_t>(pid);
  ASSIGN_OR_RETURN(r.start_ns, unsigned_field("start_ns", f[2], UINT64_MAX));
  ASSIGN_OR_RETURN(r.end_ns, unsigned_field("end_ns", f[3], UINT64_MAX));
  if (f[4].size() != 1 || !valid_state(f[4][0])) {
    return error("state " + shown(f[4]) + " is not one letter or '?'");
  }
  r.state = f[4][0];
  ASSIGN_OR_RETURN(int64_t cpu, signed_field("cpu", f[5], sched_tsv::kMaxCpus - 1));
  r.cpu = static_cast<int>(cpu);
  ASSIGN_OR_RETURN(r.by, signed_field("by", f[6], sched_tsv::kMaxTid));
  const Header& h = file_.header;
  if (r.start_ns >= r.end_ns) {
    return error("the interval is empty or reversed (start_ns " + std::to_string(r.start_ns) +
                 ", end_ns " + std::to_string(r.end_ns) + ")");
  }
  if (r.start_ns < h.kept.whole_from_ns || r.end_ns > h.window_end_ns) {
    return error("the interval is outside the kept window [" +
                 std::to_string(h.kept.whole_from_ns) + ", " + std::to_string(h.window_end_ns) +
                 "]");
  }
  std::vector<Interval>& rows = file_.intervals;
  if (rows.empty() || rows.back().tid != r.tid) {
    if (!rows.empty() && rows.back().tid > r.tid) {
      return error("tid " + std::to_string(r.tid) + " after tid " +
                   std::to_string(rows.back().tid) + ": rows are sorted by tid");
    }
    file_.thread_first.push_back(rows.size());
  } else if (r.start_ns < rows.back().end_ns) {
    return error("this interval of tid " + std::to_string(r.tid) + " starts at " +
                 std::to_string(r.start_ns) + ", before the previous one ends (" +
                 std::to_string(rows.back().end_ns) + ")");
  }
  rows.push_back(r);
  return {};
}

Result<void> IntervalsParser::slot_row(const std::vector<std::string_view>& f) {
  constexpr auto kTidMax = static_cast<uint64_t>(sched_tsv::kMaxTid);
  const Header& h = file_.header;
  Slot r;
  ASSIGN_OR_RETURN(uint64_t tid, unsigned_field("tid", f[0], kTidMax));
  if (tid == 0) return error("tid 0 (the idle task) has no slots");
  ASSIGN_OR_RETURN(uint64_t pid, unsigned_field("pid", f[1], kTidMax));
  r.tid = static_cast<int64_t>(tid);
  r.pid = static_cast<int64_t>(pid);
  ASSIGN_OR_RETURN(r.slot_start_ns, unsigned_field("slot_start_ns", f[2], UINT64_MAX));
  uint64_t* cols[] = {&r.on_cpu_ns,  &r.runnable_ns, &r.sleeping_ns, &r.blocked_ns,
                      &r.stopped_ns, &r.other_ns,    &r.switches};
  static constexpr std::string_view kNames[] = {"on_cpu_ns",  "runnable_ns", "sleeping_ns",
                                                "blocked_ns", "stopped_ns",  "other_ns",
                                                "switches"};
  uint64_t sum = 0;
  for (size_t i = 0; i < std::size(cols); ++i) {
    ASSIGN_OR_RETURN(*cols[i], unsigned_field(kNames[i], f[3 + i], UINT64_MAX));
    if (i < 6) sum += std::min<uint64_t>(*cols[i], h.kept.slot_ns + 1);  // no overflow
  }
  if (r.slot_start_ns < h.window_start_ns || r.slot_start_ns >= h.kept.whole_from_ns ||
      (r.slot_start_ns - h.window_start_ns) % h.kept.slot_ns != 0) {
    return error("slot_start_ns " + std::to_string(r.slot_start_ns) +
                 " is not the start of a slot before whole_from_ns");
  }
  if (sum > h.kept.slot_ns) {
    return error("the slot's times add up to more than slot_ns (" + std::to_string(h.kept.slot_ns) +
                 ")");
  }
  if (!file_.slots.empty()) {
    const Slot& prev = file_.slots.back();
    if (prev.tid > r.tid || (prev.tid == r.tid && prev.slot_start_ns >= r.slot_start_ns)) {
      return error("slot of tid " + std::to_string(r.tid) + " at " +
                   std::to_string(r.slot_start_ns) +
                   " out of order or repeated: rows are sorted by tid, then slot_start_ns");
    }
  }
  file_.slots.push_back(r);
  return {};
}

Result<void> IntervalsParser::end_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  uint64_t n = 0;
  if (f.size() != 2 || !parse_u64(f[1], &n)) return error("`# end` needs the count of rows");
  if (n != rows_) {
    return error("`# end` says " + std::to_string(n) + " rows, the file has " +
                 std::to_string(rows_));
  }
  ended_ = true;
  return {};
}

Result<void> IntervalsParser::run() {
  std::string_view line;
  if (!lines_.next(&line)) return fail(file_.path + ": empty file, not a hearth sched file");
  RETURN_IF_ERROR(format_line(line));
  while (lines_.next(&line)) {
    if (ended_) {
      if (line.empty()) continue;
      return error("a line after `# end`");
    }
    if (line.empty()) continue;
    if (line.starts_with('#')) {
      if (!have_columns_) {
        RETURN_IF_ERROR(header_line(line));
      } else if (line.starts_with("# end\t") || line == "# end") {
        RETURN_IF_ERROR(end_line(line));
      }
      continue;
    }
    if (!have_columns_) {
      RETURN_IF_ERROR(columns_line(line));
      have_columns_ = true;
      continue;
    }
    std::vector<std::string_view> f = split_tabs(line);
    const bool intervals = file_.header.kind == FileKind::kIntervals;
    const size_t want = intervals ? kIntervalFields : kSlotFields;
    if (f.size() != want) {
      return error(std::to_string(f.size()) + " tab-separated fields, expected " +
                   std::to_string(want) +
                   (text_.ends_with('\n') ? "" : " (the file is cut short?)"));
    }
    RETURN_IF_ERROR(intervals ? interval_row(f) : slot_row(f));
    ++rows_;
  }
  if (!have_columns_) {
    return error("the file ends before its column names line (truncated?)");
  }
  if (!ended_) {
    return error("the file ends without its `# end` line: truncated after this line");
  }
  if (!text_.ends_with('\n')) return error("the last line has no line end (truncated?)");
  return {};
}

}  // namespace

IntervalsFile parse_intervals_prefix(std::string_view text, const std::string& path,
                                     Error* problem) {
  IntervalsParser p(text, path);
  Result<void> r = p.run();
  *problem = r ? Error{} : r.error();
  return std::move(p.file());
}

Result<IntervalsFile> parse_intervals(std::string_view text, const std::string& path) {
  Error problem;
  IntervalsFile f = parse_intervals_prefix(text, path, &problem);
  if (!problem.message.empty()) return std::unexpected(std::move(problem));
  return f;
}

Result<IntervalsFile> read_intervals(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_intervals(text, path);
}

std::vector<Interval> intervals_at(const IntervalsFile& file, uint64_t t) {
  std::vector<Interval> out;
  const std::vector<Interval>& rows = file.intervals;
  for (size_t k = 0; k < file.thread_first.size(); ++k) {
    auto first = rows.begin() + static_cast<ptrdiff_t>(file.thread_first[k]);
    auto last = k + 1 < file.thread_first.size()
                    ? rows.begin() + static_cast<ptrdiff_t>(file.thread_first[k + 1])
                    : rows.end();
    // The last interval starting at or before T.
    auto after = std::upper_bound(first, last, t,
                                  [](uint64_t v, const Interval& r) { return v < r.start_ns; });
    if (after == first) continue;
    const Interval& r = *(after - 1);
    if (t < r.end_ns) out.push_back(r);
  }
  return out;
}

}  // namespace hearth::sched_intervals
