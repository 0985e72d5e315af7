// The sched TSVs' reader (formats/sched_tsv.h): strict; any problem is one error naming the
// file and line.
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "common/text_fields.h"
#include "formats/sched_tsv.h"

namespace hearth::sched_tsv {
namespace {

enum class Col : uint8_t { kTid, kCpu, kText, kU64 };

struct Column {
  std::string_view name;  // "le_*": any name starting with "le_"
  Col type;
};

// Version 2 appended the last two columns; version 1 is the first twelve.
constexpr Column kStatesColumns[] = {{"tid", Col::kTid},
                                     {"comm", Col::kText},
                                     {"pid", Col::kTid},
                                     {"on_cpu_ns", Col::kU64},
                                     {"runnable_ns", Col::kU64},
                                     {"sleeping_ns", Col::kU64},
                                     {"blocked_ns", Col::kU64},
                                     {"other_ns", Col::kU64},
                                     {"switches_runnable", Col::kU64},
                                     {"switches_sleeping", Col::kU64},
                                     {"switches_blocked", Col::kU64},
                                     {"switches_other", Col::kU64},
                                     {"stopped_ns", Col::kU64},
                                     {"switches_stopped", Col::kU64}};
constexpr size_t kStatesV1Columns = 12;
constexpr Column kTenancyColumns[] = {{"tid", Col::kTid},
                                      {"comm", Col::kText},
                                      {"cpu", Col::kCpu},
                                      {"on_cpu_ns", Col::kU64},
                                      {"switch_ins", Col::kU64}};
constexpr Column kPreemptorColumns[] = {
    {"tid", Col::kTid},           {"comm", Col::kText},           {"preemptor_pid", Col::kTid},
    {"preemptor_tid", Col::kTid}, {"preemptor_comm", Col::kText}, {"count", Col::kU64},
    {"time_ns", Col::kU64}};
// The histogram's bucket names are not pinned down beyond their prefixes: 15 `le_*`, 1 `gt_*`.
constexpr Column kWakeupColumns[] = {
    {"tid", Col::kTid},    {"comm", Col::kText},  {"wakeups", Col::kU64}, {"p50_ns", Col::kU64},
    {"p90_ns", Col::kU64}, {"p99_ns", Col::kU64}, {"max_ns", Col::kU64},  {"migrations", Col::kU64},
    {"le_*", Col::kU64},   {"le_*", Col::kU64},   {"le_*", Col::kU64},    {"le_*", Col::kU64},
    {"le_*", Col::kU64},   {"le_*", Col::kU64},   {"le_*", Col::kU64},    {"le_*", Col::kU64},
    {"le_*", Col::kU64},   {"le_*", Col::kU64},   {"le_*", Col::kU64},    {"le_*", Col::kU64},
    {"le_*", Col::kU64},   {"le_*", Col::kU64},   {"le_*", Col::kU64},    {"gt_*", Col::kU64}};
constexpr Column kCpuColumns[] = {{"tid", Col::kTid},        {"pid", Col::kTid},
                                  {"comm", Col::kText},      {"on_cpu_ns", Col::kU64},
                                  {"switch_ins", Col::kU64}, {"longest_off_ns", Col::kU64}};

std::span<const Column> columns_of(FileKind kind, int version) {
  switch (kind) {
    case FileKind::kStates:
      return std::span<const Column>(kStatesColumns)
          .first(version == 1 ? kStatesV1Columns : std::size(kStatesColumns));
    case FileKind::kTenancy:
      return kTenancyColumns;
    case FileKind::kPreemptors:
      return kPreemptorColumns;
    case FileKind::kWakeups:
      return kWakeupColumns;
    case FileKind::kCpu:
      return kCpuColumns;
  }
  return {};
}

bool column_matches(const Column& c, std::string_view name) {
  if (c.name.ends_with('*')) {
    std::string_view prefix = c.name.substr(0, c.name.size() - 1);
    return name.size() > prefix.size() && name.starts_with(prefix);
  }
  return name == c.name;
}

std::string expected_columns(std::span<const Column> cols) {
  std::string out;
  for (const Column& c : cols) {
    if (!out.empty()) out += ' ';
    out += c.name;
  }
  return out;
}

using text::parse_u64;
using text::shown;
using text::split_tabs;

class Parser {
 public:
  // CPU_ONLY: reads sched.cpu files only; else every other kind.
  Parser(std::string_view text, const std::string& path, bool cpu_only)
      : lines_(text, path), cpu_only_(cpu_only) {
    file_.path = path;
  }

  Result<SchedFile> run();

 private:
  std::unexpected<Error> error(const std::string& message) const { return lines_.error(message); }
  Result<void> format_line(std::string_view line);
  Result<void> header_line(std::string_view line);
  Result<void> columns_line(std::string_view line);
  Result<void> row(std::string_view line);
  Result<uint64_t> number(std::string_view name, std::string_view value, Col type) const;

  text::Lines lines_;
  bool cpu_only_;
  SchedFile file_;
  std::set<std::string_view> seen_headers_;
  std::map<std::pair<int64_t, int>, uint64_t> seen_keys_;  // (tid, cpu or -1) -> line
};

Result<void> Parser::format_line(std::string_view line) {
  constexpr std::string_view kPrefix = "# hearth sched.";
  if (!line.starts_with(kPrefix)) {
    return error("not a hearth sched file: expected `# hearth sched.KIND VERSION` first, found " +
                 shown(line));
  }
  std::string_view rest = line.substr(kPrefix.size());
  size_t blank = rest.find(' ');
  std::string_view name = rest.substr(0, blank);
  std::optional<FileKind> kind = parse_kind(name);
  if (cpu_only_)
    kind = name == kind_name(FileKind::kCpu) ? std::optional(FileKind::kCpu) : std::nullopt;
  if (!kind) {
    return error(
        "unknown sched file kind " + shown(name) +
        (cpu_only_ ? " (expected cpu)" : " (expected states, tenancy, preemptors or wakeups)"));
  }
  file_.header.kind = *kind;
  uint64_t version = 0;
  if (blank == std::string_view::npos || !parse_u64(rest.substr(blank + 1), &version)) {
    return error("sched." + std::string(name) + ": the version after the kind is missing or not " +
                 "a number");
  }
  const int newest = newest_version(*kind);
  if (version < 1 || version > static_cast<uint64_t>(newest)) {
    return error(
        "sched." + std::string(name) + " version " + std::to_string(version) +
        " is not supported (this hearth reads " +
        (newest == 1 ? std::string("version 1") : "versions 1 to " + std::to_string(newest)) + ")");
  }
  file_.header.version = static_cast<int>(version);
  return {};
}

Result<void> Parser::header_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  std::string_view key = f[0];
  if (key != "# target" && key != "# window_ns" && key != "# events" && key != "# lost") return {};
  if (key != "# target" && !seen_headers_.insert(key).second) {
    std::string what = "`";
    what.append(key).append("` appears twice in the header");
    return error(what);
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
  } else {
    if (f.size() != 2) return error("`# lost` needs one number");
    ASSIGN_OR_RETURN(h.lost, count("lost count", f[1]));
  }
  return {};
}

Result<void> Parser::columns_line(std::string_view line) {
  for (std::string_view required : {"# window_ns", "# lost"}) {
    if (!seen_headers_.contains(required)) {
      return error("the header lacks a `" + std::string(required) + "` line");
    }
  }
  std::span<const Column> cols = columns_of(file_.header.kind, file_.header.version);
  std::vector<std::string_view> names = split_tabs(line);
  bool ok = names.size() == cols.size();
  for (size_t i = 0; ok && i < cols.size(); ++i) ok = column_matches(cols[i], names[i]);
  if (!ok) {
    return error("expected the column names `" + expected_columns(cols) + "`, found " +
                 shown(line));
  }
  return {};
}

Result<uint64_t> Parser::number(std::string_view name, std::string_view value, Col type) const {
  uint64_t v = 0;
  if (!parse_u64(value, &v)) {
    return error(std::string(name) + " " + shown(value) + " is not a non-negative integer");
  }
  if (type == Col::kTid && v > static_cast<uint64_t>(kMaxTid)) {
    return error(std::string(name) + " " + std::to_string(v) + " is larger than any thread id");
  }
  if (type == Col::kCpu && v >= static_cast<uint64_t>(kMaxCpus)) {
    return error("cpu " + std::to_string(v) + " is larger than any CPU number");
  }
  return v;
}

Result<void> Parser::row(std::string_view line) {
  std::span<const Column> cols = columns_of(file_.header.kind, file_.header.version);
  std::vector<std::string_view> f = split_tabs(line);
  if (f.size() != cols.size()) {
    return error(std::to_string(f.size()) + " tab-separated fields, expected " +
                 std::to_string(cols.size()) + " (" + expected_columns(cols) + ")");
  }
  uint64_t n[std::size(kWakeupColumns)] = {};
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].type == Col::kText) continue;
    ASSIGN_OR_RETURN(n[i], number(cols[i].name, f[i], cols[i].type));
  }
  auto tid = static_cast<int64_t>(n[0]);
  std::string comm(f[file_.header.kind == FileKind::kCpu ? 2 : 1]);
  auto unique = [&](int cpu) -> Result<void> {
    auto [it, fresh] = seen_keys_.try_emplace({tid, cpu}, lines_.number());
    if (fresh) return {};
    std::string what = "tid " + std::to_string(tid);
    if (cpu >= 0) what += " on cpu " + std::to_string(cpu);
    return error(what + " appears twice (first on line " + std::to_string(it->second) + ")");
  };
  switch (file_.header.kind) {
    case FileKind::kStates:
      RETURN_IF_ERROR(unique(-1));
      // n[12], n[13]: version 2's stopped columns; 0 for version 1 (n is zeroed).
      file_.states.push_back({tid, std::move(comm), static_cast<int64_t>(n[2]), n[3], n[4], n[5],
                              n[6], n[7], n[8], n[9], n[10], n[11], n[12], n[13]});
      break;
    case FileKind::kTenancy:
      RETURN_IF_ERROR(unique(static_cast<int>(n[2])));
      file_.tenancy.push_back({tid, std::move(comm), static_cast<int>(n[2]), n[3], n[4]});
      break;
    case FileKind::kPreemptors:
      file_.preemptors.push_back({tid, std::move(comm), static_cast<int64_t>(n[2]),
                                  static_cast<int64_t>(n[3]), std::string(f[4]), n[5], n[6]});
      break;
    case FileKind::kWakeups: {
      RETURN_IF_ERROR(unique(-1));
      if (!(n[3] <= n[4] && n[4] <= n[5] && n[5] <= n[6])) {
        return error("wakeup latency percentiles decrease (p50 <= p90 <= p99 <= max expected)");
      }
      WakeupRow w{tid, std::move(comm), n[2], n[3], n[4], n[5], n[6], n[7], {}};
      for (int b = 0; b < kWakeupBuckets; ++b) w.histogram[b] = n[8 + b];
      file_.wakeups.push_back(std::move(w));
      break;
    }
    case FileKind::kCpu:
      RETURN_IF_ERROR(unique(-1));
      file_.cpu.push_back({tid, static_cast<int64_t>(n[1]), std::move(comm), n[3], n[4], n[5]});
      break;
  }
  return {};
}

Result<SchedFile> Parser::run() {
  std::string_view line;
  if (!lines_.next(&line)) return fail(file_.path + ": empty file, not a hearth sched file");
  RETURN_IF_ERROR(format_line(line));
  bool have_columns = false;
  while (lines_.next(&line)) {
    if (line.empty()) continue;
    if (line.starts_with('#')) {
      if (!have_columns) RETURN_IF_ERROR(header_line(line));
      continue;
    }
    if (!have_columns) {
      RETURN_IF_ERROR(columns_line(line));
      have_columns = true;
    } else {
      RETURN_IF_ERROR(row(line));
    }
  }
  if (!have_columns) {
    return fail(file_.path + ": the file ends before its column names line (truncated?)");
  }
  return std::move(file_);
}

}  // namespace

std::string_view kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::kStates:
      return "states";
    case FileKind::kTenancy:
      return "tenancy";
    case FileKind::kPreemptors:
      return "preemptors";
    case FileKind::kWakeups:
      return "wakeups";
    case FileKind::kCpu:
      return "cpu";
  }
  return "?";
}

int newest_version(FileKind kind) {
  return kind == FileKind::kStates ? 2 : 1;
}

std::optional<FileKind> parse_kind(std::string_view name) {
  for (FileKind k :
       {FileKind::kStates, FileKind::kTenancy, FileKind::kPreemptors, FileKind::kWakeups}) {
    if (name == kind_name(k)) return k;
  }
  return std::nullopt;
}

Result<SchedFile> parse_sched_tsv(std::string_view text, const std::string& path) {
  return Parser(text, path, false).run();
}

Result<SchedFile> parse_sched_cpu_tsv(std::string_view text, const std::string& path) {
  return Parser(text, path, true).run();
}

Result<SchedFile> read_sched_tsv(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_sched_tsv(text, path);
}

}  // namespace hearth::sched_tsv
