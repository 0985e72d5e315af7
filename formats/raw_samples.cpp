#include "formats/raw_samples.h"

#include "common/file_io.h"
#include "common/text_fields.h"
#include "formats/folded.h"

namespace hearth::raw_samples {
namespace {

constexpr std::string_view kColumns = "# time_ns\ttid\tstate\tstack";
constexpr std::string_view kExec =
    "# exec\tthe target called execve before this round: a new program from here on";
constexpr std::string_view kRound = "# round ";
constexpr std::string_view kProcess = "# process\t";
constexpr int64_t kMaxTid = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

using text::parse_u64;
using text::shown;
using text::split_tabs;

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : lines_(text, path) { file_.path = path; }
  Result<RawFile> run();

 private:
  std::unexpected<Error> error(const std::string& message) const { return lines_.error(message); }
  Result<void> first_line(std::string_view line);
  Result<void> round_line(std::string_view line);
  Result<void> process_line(std::string_view line);
  Result<void> sample_line(std::string_view line);

  text::Lines lines_;
  RawFile file_;
  bool exec_pending_ = false;
};

Result<void> Parser::first_line(std::string_view line) {
  if (!line.starts_with(kRawMagic)) {
    return error("not a hearth raw samples file: expected `# hearth stacks raw 1` first, found " +
                 shown(line));
  }
  std::vector<std::string_view> f = split_tabs(line.substr(kRawMagic.size()));
  uint64_t version = 0;
  if (!parse_u64(f[0], &version)) return error("the version " + shown(f[0]) + " is not a number");
  if (version != static_cast<uint64_t>(kRawVersion)) {
    return error("stacks raw version " + std::to_string(version) +
                 " is not supported (this hearth reads version 1)");
  }
  file_.version = kRawVersion;
  for (size_t i = 1; i < f.size(); ++i) {
    if (f[i].starts_with("pid=")) {
      uint64_t pid = 0;
      if (!parse_u64(f[i].substr(4), &pid) || pid > static_cast<uint64_t>(kMaxTid)) {
        return error("pid " + shown(f[i].substr(4)) + " is not a process id");
      }
      file_.pid = static_cast<int64_t>(pid);
    } else if (f[i].starts_with("name=")) {
      file_.name = std::string(f[i].substr(5));
    }
  }
  return {};
}

// `# process\tpid=N\tname=NAME[\ttitle=TITLE]` (title: an optional field, which readers of
// files without it never needed)
Result<void> Parser::process_line(std::string_view line) {
  Process p;
  bool has_pid = false;
  for (std::string_view f : split_tabs(line.substr(kProcess.size()))) {
    if (f.starts_with("pid=")) {
      uint64_t pid = 0;
      if (!parse_u64(f.substr(4), &pid) || pid == 0 || pid > static_cast<uint64_t>(kMaxTid)) {
        return error("`# process` pid " + shown(f.substr(4)) + " is not a process id");
      }
      p.pid = static_cast<int64_t>(pid);
      has_pid = true;
    } else if (f.starts_with("name=")) {
      p.name = std::string(f.substr(5));
    } else if (f.starts_with("title=")) {
      p.title = std::string(f.substr(6));
    }
  }
  if (!has_pid) return error("a `# process` line has no pid=");
  file_.processes.push_back(std::move(p));
  return {};
}

// `# round TIME\tcopied=N\treused=N\tstopped=N\tstall_ns=N`
Result<void> Parser::round_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line.substr(kRound.size()));
  Round r;
  if (!parse_u64(f[0], &r.time_ns)) return error("round time " + shown(f[0]) + " is not a number");
  constexpr std::string_view kKeys[] = {"copied=", "reused=", "stopped=", "stall_ns="};
  uint64_t* values[] = {&r.copied, &r.reused, &r.stopped, &r.stall_ns};
  if (f.size() != 1 + std::size(kKeys)) {
    return error("`# round` needs TIME copied=N reused=N stopped=N stall_ns=N");
  }
  for (size_t k = 0; k < std::size(kKeys); ++k) {
    std::string_view field = f[k + 1];
    if (!field.starts_with(kKeys[k]) || !parse_u64(field.substr(kKeys[k].size()), values[k])) {
      return error("`# round` field " + shown(field) + " is not " + std::string(kKeys[k]) + "N");
    }
  }
  r.after_exec = exec_pending_;
  exec_pending_ = false;
  file_.rounds.push_back(r);
  file_.round_first_sample.push_back(file_.samples.size());
  return {};
}

Result<void> Parser::sample_line(std::string_view line) {
  Sample s;
  size_t t1 = line.find('\t');
  size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
  size_t t3 = t2 == std::string_view::npos ? t2 : line.find('\t', t2 + 1);
  if (t3 == std::string_view::npos) {
    return error("a sample needs 4 tab-separated fields (time_ns tid state stack), found " +
                 shown(line));
  }
  std::string_view time = line.substr(0, t1), tid = line.substr(t1 + 1, t2 - t1 - 1),
                   state = line.substr(t2 + 1, t3 - t2 - 1), stack = line.substr(t3 + 1);
  if (!parse_u64(time, &s.time_ns)) return error("time " + shown(time) + " is not a number");
  uint64_t id = 0;
  if (!parse_u64(tid, &id) || id > static_cast<uint64_t>(kMaxTid)) {
    return error("tid " + shown(tid) + " is not a thread id");
  }
  s.tid = static_cast<int64_t>(id);
  if (state.size() != 1) return error("state " + shown(state) + " is not one letter");
  s.state = state[0];
  if (stack.empty()) return error("a sample has an empty stack");
  for (char c : stack) {  // the writer's frames are folded-safe: no tab, line end or other control
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return error("a stack holds a tab or another control byte");
    }
  }
  s.stack = std::string(stack);
  file_.samples.push_back(std::move(s));
  return {};
}

Result<RawFile> Parser::run() {
  std::string_view line;
  if (!lines_.next(&line)) return fail(file_.path + ": empty file, not a hearth raw samples file");
  RETURN_IF_ERROR(first_line(line));
  while (lines_.next(&line)) {
    if (line.empty()) continue;
    if (line.starts_with(kRound)) {
      RETURN_IF_ERROR(round_line(line));
    } else if (line.starts_with(kProcess)) {
      RETURN_IF_ERROR(process_line(line));
    } else if (line.starts_with("# exec")) {
      exec_pending_ = true;
    } else if (!line.starts_with('#')) {
      RETURN_IF_ERROR(sample_line(line));
    }
  }
  return std::move(file_);
}

}  // namespace

void append_header(std::string* out, int64_t pid, std::string_view name) {
  *out += kRawMagic;
  text::append_decimal(out, kRawVersion);
  *out += "\tpid=";
  text::append_decimal(out, pid);
  *out += "\tname=";
  *out += formats::folded_safe(name);
  *out += '\n';
  *out += kColumns;
  *out += '\n';
}

void append_set_header(std::string* out, const std::vector<Process>& processes) {
  *out += kRawMagic;
  text::append_decimal(out, kRawVersion);
  *out += "\tprocesses=";
  text::append_decimal(out, processes.size());
  *out += '\n';
  for (const Process& p : processes) {
    *out += kProcess;
    *out += "pid=";
    text::append_decimal(out, p.pid);
    *out += "\tname=";
    *out += formats::folded_safe(p.name);
    if (!p.title.empty()) {
      *out += "\ttitle=";
      *out += formats::folded_safe(p.title);
    }
    *out += '\n';
  }
  *out += kColumns;
  *out += '\n';
}

void append_round(std::string* out, const Round& r) {
  if (r.after_exec) {
    *out += kExec;
    *out += '\n';
  }
  *out += kRound;
  text::append_decimal(out, r.time_ns);
  *out += "\tcopied=";
  text::append_decimal(out, r.copied);
  *out += "\treused=";
  text::append_decimal(out, r.reused);
  *out += "\tstopped=";
  text::append_decimal(out, r.stopped);
  *out += "\tstall_ns=";
  text::append_decimal(out, r.stall_ns);
  *out += '\n';
}

void append_sample(std::string* out, const Sample& s) {
  text::append_decimal(out, s.time_ns);
  *out += '\t';
  text::append_decimal(out, s.tid);
  *out += '\t';
  out->push_back(s.state);
  *out += '\t';
  *out += s.stack;
  *out += '\n';
}

Result<RawFile> parse_raw_samples(std::string_view text, const std::string& path) {
  return Parser(text, path).run();
}

Result<RawFile> read_raw_samples(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_raw_samples(text, path);
}

}  // namespace hearth::raw_samples
