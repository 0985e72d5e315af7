#include "formats/timed_samples.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "common/file_io.h"
#include "common/text_fields.h"
#include "formats/folded.h"

namespace hearth::timed_samples {
namespace {

constexpr std::string_view kLinesDoc =
    "# lines: s ID FRAMES | t TID PID ROOT | r TIME_NS PID copied= reused= stopped= stall_ns= | "
    "TID STATE STACK_ID | - TID";
constexpr std::string_view kProcessLine = "# process\t";
constexpr uint64_t kLargestTid = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

using text::parse_u64;
using text::shown;
using text::split_tabs;

bool is_id(uint64_t v) {
  return v > 0 && v <= kLargestTid;
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// A state byte: printable ASCII, not a digit (a change line's first field is a tid) and not the
// `-` of a gone line.
bool is_state(std::string_view s) {
  return s.size() == 1 && s[0] > 0x20 && s[0] < 0x7f && s[0] != kGone &&
         !(s[0] >= '0' && s[0] <= '9');
}

std::string thread_key(int64_t tid, int64_t pid, std::string_view root) {
  std::string key = std::to_string(tid);
  key += '\t';
  key += std::to_string(pid);
  key += '\t';
  key += root;
  return key;
}

size_t whole_lines(std::string_view text) {
  const size_t nl = text.rfind('\n');
  return nl == std::string_view::npos ? 0 : nl + 1;
}

class SamplesParser {
 public:
  // A last line without its '\n' was cut short (the writer ends every line): it is not read.
  SamplesParser(std::string_view text, const std::string& path)
      : text_(text), lines_(text.substr(0, whole_lines(text)), path), path_(path) {}
  Result<Samples> run();

 private:
  std::unexpected<Error> error(const std::string& message) const { return lines_.error(message); }
  Result<void> first_line(std::string_view line);
  Result<void> process_line(std::string_view line);
  Result<void> line(std::string_view line);
  Result<void> stack_line(std::string_view line);
  Result<void> thread_line(std::string_view line);
  Result<void> round_line(std::string_view line);
  Result<void> change_line(std::string_view line);
  Result<void> gone_line(std::string_view line);
  // Keeps the rounds before the current one (whose lines may be incomplete).
  void drop_open_round();

  std::string_view text_;
  text::Lines lines_;
  std::string path_;
  Samples s_;
  std::unordered_map<std::string, uint32_t> thread_ids_;
  std::unordered_map<int64_t, uint32_t> declared_;  // tid -> its thread from its last `t` line
  std::unordered_map<int64_t, std::unordered_map<int64_t, uint32_t>> sets_;  // pid -> tid -> thread
  std::vector<int64_t> round_tids_;  // tids with a line in the current round
  bool exec_pending_ = false;
};

Result<void> SamplesParser::first_line(std::string_view line) {
  if (!line.starts_with(kMagic)) {
    return error("not a hearth timed samples file: expected `# hearth samples 1` first, found " +
                 shown(line));
  }
  std::vector<std::string_view> f = split_tabs(line.substr(kMagic.size()));
  uint64_t version = 0;
  if (!parse_u64(f[0], &version)) return error("the version " + shown(f[0]) + " is not a number");
  if (version < 1 || version > static_cast<uint64_t>(kVersion)) {
    return error("samples version " + std::to_string(version) +
                 " is not supported (this hearth reads versions 1 and 2)");
  }
  s_.version = static_cast<int>(version);
  for (size_t i = 1; i < f.size(); ++i) {
    uint64_t v = 0;
    if (f[i].starts_with("pid=")) {
      if (!parse_u64(f[i].substr(4), &v) || !is_id(v)) {
        return error("pid " + shown(f[i].substr(4)) + " is not a process id");
      }
      s_.pid = static_cast<int64_t>(v);
    } else if (f[i].starts_with("name=")) {
      s_.name = std::string(f[i].substr(5));
    } else if (f[i].starts_with("mono_ns=")) {
      if (!parse_u64(f[i].substr(8), &s_.mono_ns)) {
        return error("mono_ns " + shown(f[i].substr(8)) + " is not a number");
      }
    } else if (f[i].starts_with("real_ns=")) {
      if (!parse_u64(f[i].substr(8), &s_.real_ns)) {
        return error("real_ns " + shown(f[i].substr(8)) + " is not a number");
      }
    }
  }
  return {};
}

// `# process\tpid=N\tname=NAME[\ttitle=TITLE]` (title: version 2)
Result<void> SamplesParser::process_line(std::string_view line) {
  Process p;
  for (std::string_view f : split_tabs(line.substr(kProcessLine.size()))) {
    uint64_t pid = 0;
    if (f.starts_with("pid=")) {
      if (!parse_u64(f.substr(4), &pid) || !is_id(pid)) {
        return error("`# process` pid " + shown(f.substr(4)) + " is not a process id");
      }
      p.pid = static_cast<int64_t>(pid);
    } else if (f.starts_with("name=")) {
      p.name = std::string(f.substr(5));
    } else if (f.starts_with("title=")) {
      if (has_control(f.substr(6))) return error("a `# process` title holds a control byte");
      p.title = std::string(f.substr(6));
    }
  }
  if (p.pid == 0) return error("a `# process` line has no pid=");
  s_.processes.push_back(std::move(p));
  return {};
}

// `s\tID\tFRAMES`
Result<void> SamplesParser::stack_line(std::string_view line) {
  const size_t tab = line.find('\t', 2);
  if (line.size() < 3 || line[1] != '\t' || tab == std::string_view::npos) {
    return error("a stack line needs `s ID FRAMES`, found " + shown(line));
  }
  uint64_t id = 0;
  std::string_view id_text = line.substr(2, tab - 2), frames = line.substr(tab + 1);
  if (!parse_u64(id_text, &id)) return error("stack id " + shown(id_text) + " is not a number");
  if (id != s_.stacks.size()) {
    return error("stack " + std::to_string(id) + " is out of order (expected " +
                 std::to_string(s_.stacks.size()) + ")");
  }
  if (has_control(frames)) return error("stack " + std::to_string(id) + " holds a control byte");
  s_.stacks.emplace_back(frames);
  return {};
}

// `t\tTID\tPID\tROOT`
Result<void> SamplesParser::thread_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  if (f.size() != 4) return error("a thread line needs `t TID PID ROOT`, found " + shown(line));
  uint64_t tid = 0, pid = 0;
  if (!parse_u64(f[1], &tid) || !is_id(tid))
    return error("tid " + shown(f[1]) + " is not a thread id");
  if (!parse_u64(f[2], &pid) || !is_id(pid))
    return error("pid " + shown(f[2]) + " is not a process id");
  if (f[3].empty() || has_control(f[3]))
    return error("thread " + shown(f[1]) + " has no root frame");
  const int64_t t = static_cast<int64_t>(tid);
  std::string key = thread_key(t, static_cast<int64_t>(pid), f[3]);
  auto [it, added] = thread_ids_.try_emplace(key, static_cast<uint32_t>(s_.threads.size()));
  if (added) s_.threads.push_back({t, static_cast<int64_t>(pid), std::string(f[3])});
  declared_[t] = it->second;
  return {};
}

// `r\tTIME\tPID\tcopied=N\treused=N\tstopped=N\tstall_ns=N`
Result<void> SamplesParser::round_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  constexpr std::string_view kKeys[] = {"copied=", "reused=", "stopped=", "stall_ns="};
  if (f.size() != 3 + std::size(kKeys)) {
    return error("a sample line needs `r TIME_NS PID copied=N reused=N stopped=N stall_ns=N`");
  }
  Round r;
  uint64_t pid = 0;
  if (!parse_u64(f[1], &r.time_ns)) return error("time " + shown(f[1]) + " is not a number");
  if (!parse_u64(f[2], &pid) || !is_id(pid))
    return error("pid " + shown(f[2]) + " is not a process id");
  if (!s_.rounds.empty() && r.time_ns < s_.rounds.back().time_ns) {
    return error("time " + shown(f[1]) + " is before the previous sample's");
  }
  uint64_t* values[] = {&r.copied, &r.reused, &r.stopped, &r.stall_ns};
  for (size_t k = 0; k < std::size(kKeys); ++k) {
    std::string_view field = f[k + 3];
    if (!field.starts_with(kKeys[k]) || !parse_u64(field.substr(kKeys[k].size()), values[k])) {
      return error("sample field " + shown(field) + " is not " + std::string(kKeys[k]) + "N");
    }
  }
  r.pid = static_cast<int64_t>(pid);
  r.after_exec = exec_pending_;
  exec_pending_ = false;
  r.first_change = static_cast<uint32_t>(s_.changes.size());
  s_.rounds.push_back(r);
  round_tids_.clear();
  return {};
}

// `TID\tSTATE\tSTACK_ID`
Result<void> SamplesParser::change_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  if (f.size() != 3)
    return error("a thread's sample needs `TID STATE STACK_ID`, found " + shown(line));
  if (s_.rounds.empty()) return error("a thread's sample before the first `r` line");
  uint64_t tid = 0, stack = 0;
  if (!parse_u64(f[0], &tid) || !is_id(tid))
    return error("tid " + shown(f[0]) + " is not a thread id");
  if (!is_state(f[1])) return error("state " + shown(f[1]) + " is not one letter");
  if (!parse_u64(f[2], &stack) || stack >= s_.stacks.size()) {
    return error("stack " + shown(f[2]) + " is not declared by an `s` line before");
  }
  const int64_t t = static_cast<int64_t>(tid);
  auto d = declared_.find(t);
  if (d == declared_.end()) return error("tid " + shown(f[0]) + " has no `t` line before");
  const Round& r = s_.rounds.back();
  if (s_.threads[d->second].pid != r.pid) {
    return error("tid " + shown(f[0]) + " is not of process " + std::to_string(r.pid));
  }
  if (std::find(round_tids_.begin(), round_tids_.end(), t) != round_tids_.end()) {
    return error("tid " + shown(f[0]) + " has two lines in one sample");
  }
  round_tids_.push_back(t);
  sets_[r.pid][t] = d->second;
  s_.changes.push_back({d->second, static_cast<uint32_t>(stack), f[1][0]});
  return {};
}

// `-\tTID`
Result<void> SamplesParser::gone_line(std::string_view line) {
  std::vector<std::string_view> f = split_tabs(line);
  uint64_t tid = 0;
  if (f.size() != 2 || !parse_u64(f[1], &tid))
    return error("a gone line needs `- TID`, found " + shown(line));
  if (s_.rounds.empty()) return error("a gone line before the first `r` line");
  const int64_t t = static_cast<int64_t>(tid);
  auto& set = sets_[s_.rounds.back().pid];
  auto it = set.find(t);
  if (it == set.end()) return error("tid " + shown(f[1]) + " is gone but was not in the sample");
  if (std::find(round_tids_.begin(), round_tids_.end(), t) != round_tids_.end()) {
    return error("tid " + shown(f[1]) + " has two lines in one sample");
  }
  round_tids_.push_back(t);
  s_.changes.push_back({it->second, 0, kGone});
  set.erase(it);
  return {};
}

Result<void> SamplesParser::line(std::string_view line) {
  if (line.empty()) return {};
  switch (line[0]) {
    case '#':
      if (line.starts_with(kProcessLine)) return process_line(line);
      return {};
    case 's':
      return stack_line(line);
    case 't':
      return thread_line(line);
    case 'r':
      return round_line(line);
    case 'e':
      if (line != "e") return error("an exec line is `e` alone, found " + shown(line));
      exec_pending_ = true;
      return {};
    case '-':
      return gone_line(line);
    default:
      if (line[0] >= '0' && line[0] <= '9') return change_line(line);
      return error("unknown line " + shown(line));
  }
}

void SamplesParser::drop_open_round() {
  if (s_.rounds.empty()) return;
  s_.changes.resize(s_.rounds.back().first_change);
  s_.rounds.pop_back();
}

Result<Samples> SamplesParser::run() {
  std::string_view l;
  if (!lines_.next(&l)) {
    if (text_.empty()) return fail(path_ + ": empty file, not a hearth timed samples file");
    return fail(path_ + ":1: the file ends inside its first line: it was cut short");
  }
  RETURN_IF_ERROR(first_line(l));
  while (lines_.next(&l)) {
    if (Result<void> r = line(l); !r) {
      s_.damage = r.error().message;
      drop_open_round();
      return std::move(s_);
    }
  }
  if (whole_lines(text_) < text_.size()) {
    s_.damage =
        lines_.error_at(lines_.number() + 1, "the file ends inside this line: it was cut short")
            .error()
            .message;
    drop_open_round();
  }
  return std::move(s_);
}

// The length of the root part of raw sample frames FRAMES of thread TID: the process root,
// then frames up to the thread root that names TID (within the first three frames), or the
// first frame alone.
size_t raw_root_frames(const std::vector<std::string_view>& frames, int64_t tid) {
  for (size_t i = 0; i < frames.size() && i < 3; ++i) {
    auto t = formats::parse_thread_root(frames[i]);
    if (t && t->tid == tid) return i + 1;
  }
  return frames.empty() ? 0 : 1;
}

}  // namespace

void expand(const Samples& samples,
            const std::function<void(size_t round, std::span<const Sample> threads)>& fn) {
  std::unordered_map<int64_t, std::map<int64_t, Sample>> sets;  // pid -> tid -> sample
  std::vector<Sample> out;
  for (size_t i = 0; i < samples.rounds.size(); ++i) {
    const Round& r = samples.rounds[i];
    const size_t end =
        i + 1 < samples.rounds.size() ? samples.rounds[i + 1].first_change : samples.changes.size();
    auto& set = sets[r.pid];
    for (size_t c = r.first_change; c < end && c < samples.changes.size(); ++c) {
      const Change& ch = samples.changes[c];
      const int64_t tid = samples.threads[ch.thread].tid;
      if (ch.state == kGone) {
        set.erase(tid);
        continue;
      }
      auto [it, added] = set.try_emplace(tid);
      Sample& s = it->second;
      if (added || s.stack != ch.stack || s.state != ch.state) {
        s.since_round = static_cast<uint32_t>(i);
      }
      s.thread = ch.thread;
      s.stack = ch.stack;
      s.state = ch.state;
    }
    out.clear();
    for (const auto& [tid, s] : set) out.push_back(s);
    fn(i, out);
  }
}

Moment moment(const Samples& samples, uint64_t time_ns) {
  struct Best {
    size_t round;
    uint64_t distance;
    std::vector<Sample> threads;
  };
  std::map<int64_t, Best> best;  // pid -> its sample nearest TIME_NS so far
  expand(samples, [&](size_t round, std::span<const Sample> threads) {
    const uint64_t t = samples.rounds[round].time_ns;
    const uint64_t distance = t > time_ns ? t - time_ns : time_ns - t;
    auto [it, added] = best.try_emplace(samples.rounds[round].pid);
    if (added || distance < it->second.distance) {
      it->second = {round, distance, {threads.begin(), threads.end()}};
    }
  });
  std::vector<const Best*> chosen;
  for (const auto& [pid, b] : best) chosen.push_back(&b);
  std::sort(chosen.begin(), chosen.end(),
            [](const Best* a, const Best* b) { return a->round < b->round; });
  Moment m;
  for (const Best* b : chosen) {
    m.rounds.push_back(b->round);
    m.threads.insert(m.threads.end(), b->threads.begin(), b->threads.end());
  }
  return m;
}

Builder::Builder(int64_t pid, std::string name, std::vector<Process> processes, uint64_t mono_ns,
                 uint64_t real_ns) {
  samples_.pid = pid;
  samples_.name = std::move(name);
  samples_.processes = std::move(processes);
  samples_.mono_ns = mono_ns;
  samples_.real_ns = real_ns;
}

uint32_t Builder::intern_stack(std::string_view frames) {
  auto [it, added] =
      stack_ids_.try_emplace(std::string(frames), static_cast<uint32_t>(samples_.stacks.size()));
  if (added) samples_.stacks.emplace_back(frames);
  return it->second;
}

void Builder::add(Round round, std::span<const Entry> threads) {
  round.first_change = static_cast<uint32_t>(samples_.changes.size());
  auto& set = current_[round.pid];
  struct Pending {
    int64_t tid;
    Change change;
  };
  std::vector<Pending> pending;
  // In tid order, the order of the changes: new stacks and threads get their ids in the order
  // the file declares them.
  sorted_.assign(threads.begin(), threads.end());
  std::sort(sorted_.begin(), sorted_.end(),
            [](const Entry& a, const Entry& b) { return a.tid < b.tid; });
  std::unordered_map<int64_t, bool> present;
  present.reserve(threads.size());
  for (const Entry& e : sorted_) {
    present[e.tid] = true;
    auto [t, new_thread] = thread_ids_.try_emplace(thread_key(e.tid, round.pid, e.root),
                                                   static_cast<uint32_t>(samples_.threads.size()));
    if (new_thread) samples_.threads.push_back({e.tid, round.pid, std::string(e.root)});
    const uint32_t stack = e.stack != kNoStack ? e.stack : intern_stack(e.frames);
    Current now{t->second, stack, e.state};
    auto it = set.find(e.tid);
    if (it != set.end() && it->second.thread == now.thread && it->second.stack == now.stack &&
        it->second.state == now.state) {
      continue;
    }
    set[e.tid] = now;
    pending.push_back({e.tid, {now.thread, now.stack, now.state}});
  }
  for (auto it = set.begin(); it != set.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    pending.push_back({it->first, {it->second.thread, 0, kGone}});
    it = set.erase(it);
  }
  std::sort(pending.begin(), pending.end(),
            [](const Pending& a, const Pending& b) { return a.tid < b.tid; });
  for (const Pending& p : pending) samples_.changes.push_back(p.change);
  samples_.rounds.push_back(round);
}

std::string format(const Samples& s) {
  std::string out;
  out += kMagic;
  text::append_decimal(&out, kVersion);
  if (!s.processes.empty()) {
    out += "\tprocesses=";
    text::append_decimal(&out, s.processes.size());
  }
  if (s.pid != 0) {
    out += "\tpid=";
    text::append_decimal(&out, s.pid);
  }
  if (!s.name.empty()) {
    out += "\tname=";
    out += formats::folded_safe(s.name);
  }
  out += "\tmono_ns=";
  text::append_decimal(&out, s.mono_ns);
  out += "\treal_ns=";
  text::append_decimal(&out, s.real_ns);
  out += '\n';
  for (const Process& p : s.processes) {
    out += kProcessLine;
    out += "pid=";
    text::append_decimal(&out, p.pid);
    out += "\tname=";
    out += formats::folded_safe(p.name);
    if (!p.title.empty()) {
      out += "\ttitle=";
      out += formats::folded_safe(p.title);
    }
    out += '\n';
  }
  out += kLinesDoc;
  out += '\n';
  size_t stacks_declared = 0;
  std::unordered_map<int64_t, uint32_t> declared;  // tid -> thread of its last `t` line
  for (size_t i = 0; i < s.rounds.size(); ++i) {
    const Round& r = s.rounds[i];
    const size_t end = i + 1 < s.rounds.size() ? s.rounds[i + 1].first_change : s.changes.size();
    for (size_t c = r.first_change; c < end; ++c) {
      const Change& ch = s.changes[c];
      if (ch.state == kGone) continue;
      while (stacks_declared <= ch.stack) {
        out += "s\t";
        text::append_decimal(&out, stacks_declared);
        out += '\t';
        out += s.stacks[stacks_declared];
        out += '\n';
        ++stacks_declared;
      }
      const Thread& t = s.threads[ch.thread];
      auto d = declared.find(t.tid);
      if (d != declared.end() && d->second == ch.thread) continue;
      declared[t.tid] = ch.thread;
      out += "t\t";
      text::append_decimal(&out, t.tid);
      out += '\t';
      text::append_decimal(&out, t.pid);
      out += '\t';
      out += t.root;
      out += '\n';
    }
    if (r.after_exec) out += "e\n";
    out += "r\t";
    text::append_decimal(&out, r.time_ns);
    out += '\t';
    text::append_decimal(&out, r.pid);
    out += "\tcopied=";
    text::append_decimal(&out, r.copied);
    out += "\treused=";
    text::append_decimal(&out, r.reused);
    out += "\tstopped=";
    text::append_decimal(&out, r.stopped);
    out += "\tstall_ns=";
    text::append_decimal(&out, r.stall_ns);
    out += '\n';
    for (size_t c = r.first_change; c < end; ++c) {
      const Change& ch = s.changes[c];
      if (ch.state == kGone) {
        out += "-\t";
        text::append_decimal(&out, s.threads[ch.thread].tid);
      } else {
        text::append_decimal(&out, s.threads[ch.thread].tid);
        out += '\t';
        out += ch.state;
        out += '\t';
        text::append_decimal(&out, ch.stack);
      }
      out += '\n';
    }
  }
  return out;
}

Result<Samples> parse(std::string_view text, const std::string& path) {
  return SamplesParser(text, path).run();
}

Samples from_raw(const raw_samples::RawFile& raw) {
  std::vector<Process> processes;
  for (const raw_samples::Process& p : raw.processes) processes.push_back({p.pid, p.name, p.title});
  Builder b(raw.processes.empty() ? raw.pid : 0, raw.processes.empty() ? raw.name : "",
            std::move(processes), 0, 0);
  // A file without `# round` lines (another writer's): a sample per distinct time.
  std::vector<raw_samples::Round> rounds = raw.rounds;
  std::vector<size_t> firsts = raw.round_first_sample;
  if (rounds.empty()) {
    for (size_t i = 0; i < raw.samples.size(); ++i) {
      if (i == 0 || raw.samples[i].time_ns != raw.samples[i - 1].time_ns) {
        rounds.push_back({.time_ns = raw.samples[i].time_ns});
        firsts.push_back(i);
      }
    }
  }
  std::vector<Builder::Entry> entries;
  std::vector<std::string_view> frames;
  uint64_t last_time = 0;
  for (size_t i = 0; i < rounds.size(); ++i) {
    const size_t end = i + 1 < firsts.size() ? firsts[i + 1] : raw.samples.size();
    // A set's rounds are per process: split this round's samples by the process of their root.
    std::map<int64_t, std::vector<Builder::Entry>> by_pid;
    for (size_t k = firsts[i]; k < end; ++k) {
      const raw_samples::Sample& smp = raw.samples[k];
      frames.clear();
      std::string_view rest = smp.stack;
      while (true) {
        size_t semi = rest.find(';');
        frames.push_back(rest.substr(0, semi));
        if (semi == std::string_view::npos) break;
        rest.remove_prefix(semi + 1);
      }
      const size_t n = raw_root_frames(frames, smp.tid);
      size_t root_len = 0;
      for (size_t f = 0; f < n; ++f) root_len += frames[f].size() + (f ? 1 : 0);
      std::string_view stack = smp.stack;
      int64_t pid = raw.pid;
      if (auto p = formats::parse_process_root(frames[0]); p && p->pid > 0) pid = p->pid;
      if (pid <= 0) pid = smp.tid;
      Builder::Entry e{smp.tid, stack.substr(0, root_len),
                       root_len < stack.size() ? stack.substr(root_len + 1) : std::string_view(),
                       smp.state};
      by_pid[pid].push_back(e);
    }
    // Times must not decrease: a writer's rounds are in order; keep them so if not.
    uint64_t time = std::max(rounds[i].time_ns, last_time);
    last_time = time;
    for (auto& [pid, list] : by_pid) {
      entries = std::move(list);
      b.add({.time_ns = time,
             .pid = pid,
             .copied = rounds[i].copied,
             .reused = rounds[i].reused,
             .stopped = rounds[i].stopped,
             .stall_ns = rounds[i].stall_ns,
             .after_exec = rounds[i].after_exec},
            entries);
    }
  }
  return b.take();
}

Result<Samples> read(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  if (text.starts_with(raw_samples::kRawMagic)) {
    ASSIGN_OR_RETURN(raw_samples::RawFile raw, raw_samples::parse_raw_samples(text, path));
    return from_raw(raw);
  }
  return parse(text, path);
}

Result<Samples> read_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path + ": " + std::strerror(errno), errno);
  std::string head, line;
  while (std::getline(in, line) && line.starts_with("#")) {
    head += line;
    head += '\n';
  }
  if (head.starts_with(raw_samples::kRawMagic)) {
    ASSIGN_OR_RETURN(raw_samples::RawFile raw, raw_samples::parse_raw_samples(head, path));
    return from_raw(raw);
  }
  return parse(head, path);
}

}  // namespace hearth::timed_samples
