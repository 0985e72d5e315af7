#include "collectors/sched/tsv_writer.h"

#include <charconv>
#include <cstdio>

namespace hearth::sched {
namespace {

void append_num(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void append_unum(std::string* out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// comm without tab/CR/LF (they would break a line or a column).
void append_text(std::string* out, std::string_view text) {
  for (char c : text) out->push_back(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
}

void append_header(std::string* out, std::string_view kind, int version, const SchedHeader& h) {
  *out += "# hearth sched.";
  *out += kind;
  *out += ' ';
  append_num(out, version);
  *out += '\n';
  if (h.targets.empty()) {
    *out += "# target\tall";
    if (h.cpu >= 0) {
      *out += "\tcpu=";
      append_num(out, h.cpu);
    }
    *out += '\n';
  }
  for (const SchedTarget& t : h.targets) {
    *out += "# target\tpid=";
    append_num(out, t.pid);
    *out += "\tcomm=";
    append_text(out, t.comm);
    if (h.inherit) *out += "\tinherit";
    *out += '\n';
  }
  *out += "# window_ns\t";
  append_unum(out, h.window_start_ns);
  *out += '\t';
  append_unum(out, h.window_end_ns);
  *out += '\t';
  append_unum(out, h.window_end_ns >= h.window_start_ns ? h.window_end_ns - h.window_start_ns : 0);
  *out += "\n# events\tsched_switch=";
  append_unum(out, h.sched_switch);
  *out += "\tsched_waking=";
  append_unum(out, h.sched_waking);
  *out += "\tsched_wakeup=";
  append_unum(out, h.sched_wakeup);
  *out += "\tsched_migrate_task=";
  append_unum(out, h.sched_migrate_task);
  *out += "\n# lost\t";
  append_unum(out, h.lost);
  *out += '\n';
}

// Appends "\tV" for each value.
template <typename... V>
void cols(std::string* out, V... values) {
  ((*out += '\t', append_unum(out, static_cast<uint64_t>(values))), ...);
}

}  // namespace

std::string format_states(const SchedHeader& header, const SchedModel& model) {
  std::string out;
  append_header(&out, "states", kStatesVersion, header);
  // Version 2 added the last two columns; the first twelve are version 1's.
  out +=
      "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
      "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\t"
      "stopped_ns\tswitches_stopped\n";
  for (const ThreadStates& s : model.states) {
    append_num(&out, s.tid);
    out += '\t';
    append_text(&out, s.comm);
    out += '\t';
    append_num(&out, s.pid);
    auto off = [&s](OffState st) { return s.off_ns[static_cast<size_t>(st)]; };
    auto sw = [&s](OffState st) { return s.switches[static_cast<size_t>(st)]; };
    cols(&out, s.on_cpu_ns, off(OffState::kRunnable), off(OffState::kSleeping),
         off(OffState::kBlocked), off(OffState::kOther), sw(OffState::kRunnable),
         sw(OffState::kSleeping), sw(OffState::kBlocked), sw(OffState::kOther),
         off(OffState::kStopped), sw(OffState::kStopped));
    out += '\n';
  }
  return out;
}

std::string format_tenancy(const SchedHeader& header, const SchedModel& model) {
  std::string out;
  append_header(&out, "tenancy", kOtherFilesVersion, header);
  out += "tid\tcomm\tcpu\ton_cpu_ns\tswitch_ins\n";
  for (const TenancyRow& r : model.tenancy) {
    append_num(&out, r.tid);
    out += '\t';
    append_text(&out, r.comm);
    out += '\t';
    append_num(&out, r.cpu);
    cols(&out, r.on_cpu_ns, r.switch_ins);
    out += '\n';
  }
  return out;
}

std::string format_preemptors(const SchedHeader& header, const SchedModel& model) {
  std::string out;
  append_header(&out, "preemptors", kOtherFilesVersion, header);
  out += "tid\tcomm\tpreemptor_pid\tpreemptor_tid\tpreemptor_comm\tcount\ttime_ns\n";
  for (const PreemptorRow& r : model.preemptors) {
    append_num(&out, r.tid);
    out += '\t';
    append_text(&out, r.comm);
    out += '\t';
    append_num(&out, r.preemptor_pid);
    out += '\t';
    append_num(&out, r.preemptor_tid);
    out += '\t';
    append_text(&out, r.preemptor_comm);
    cols(&out, r.count, r.time_ns);
    out += '\n';
  }
  return out;
}

std::string format_wakeups(const SchedHeader& header, const SchedModel& model) {
  std::string out;
  append_header(&out, "wakeups", kOtherFilesVersion, header);
  out += "tid\tcomm\twakeups\tp50_ns\tp90_ns\tp99_ns\tmax_ns\tmigrations";
  for (int k = 0; k < kLatencyBuckets - 1; ++k) {
    out += k < 10 ? "\tle_" + std::to_string(1 << k) + "us"
                  : "\tle_" + std::to_string(1 << (k - 10)) + "ms";
  }
  out += "\tgt_16ms\n";
  for (const WakeupRow& r : model.wakeups) {
    append_num(&out, r.tid);
    out += '\t';
    append_text(&out, r.comm);
    cols(&out, r.wakeups, r.p50_ns, r.p90_ns, r.p99_ns, r.max_ns, r.migrations);
    for (uint64_t c : r.histogram) cols(&out, c);
    out += '\n';
  }
  return out;
}

std::string format_cpu(const SchedHeader& header, const SchedModel& model) {
  std::string out;
  append_header(&out, "cpu", kOtherFilesVersion, header);
  out += "tid\tpid\tcomm\ton_cpu_ns\tswitch_ins\tlongest_off_ns\n";
  for (const CpuRow& r : model.cpu) {
    append_num(&out, r.tid);
    out += '\t';
    append_num(&out, r.pid);
    out += '\t';
    append_text(&out, r.comm);
    cols(&out, r.on_cpu_ns, r.switch_ins, r.longest_off_ns);
    out += '\n';
  }
  return out;
}

Result<void> write_sched_tsvs(const std::string& dir, const SchedHeader& header,
                              const SchedModel& model, bool wakeups, bool cpu_view) {
  RETURN_IF_ERROR(write_file_atomically(dir + "/sched.states.tsv", format_states(header, model)));
  RETURN_IF_ERROR(write_file_atomically(dir + "/sched.tenancy.tsv", format_tenancy(header, model)));
  RETURN_IF_ERROR(
      write_file_atomically(dir + "/sched.preemptors.tsv", format_preemptors(header, model)));
  if (wakeups) {
    RETURN_IF_ERROR(
        write_file_atomically(dir + "/sched.wakeups.tsv", format_wakeups(header, model)));
  }
  if (cpu_view) {
    RETURN_IF_ERROR(write_file_atomically(dir + "/sched.cpu.tsv", format_cpu(header, model)));
  }
  return {};
}

// --- ftrace text ---

std::string ftrace_text_header() {
  return "# tracer: nop\n"
         "#\n"
         "#                                _-----=> irqs-off/BH-disabled\n"
         "#                               / _----=> need-resched\n"
         "#                              | / _---=> hardirq/softirq\n"
         "#                              || / _--=> preempt-depth\n"
         "#                              ||| / _-=> migrate-disable\n"
         "#                              |||| /     delay\n"
         "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
         "#              | |         |   |||||     |         |\n";
}

namespace {

void pad_left(std::string* out, std::string_view text, size_t width) {
  if (text.size() < width) out->append(width - text.size(), ' ');
  *out += text;
}

// Zero-padded decimal of at least WIDTH digits.
void append_zero_padded(std::string* out, uint64_t v, int width) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  for (int n = static_cast<int>(r.ptr - buf); n < width; ++n) out->push_back('0');
  out->append(buf, r.ptr);
}

// "%16s-%-7d [%03d] FLAGS %5lu.%06lu: " as the kernel's trace_print_context() prints it.
void append_context(std::string* out, const EventContext& c, std::string_view comm) {
  if (c.common_pid == 0) {
    pad_left(out, "<idle>", 16);
  } else if (comm.empty()) {
    pad_left(out, "<...>", 16);
  } else {
    if (comm.size() < 16) out->append(16 - comm.size(), ' ');
    append_text(out, comm);
  }
  out->push_back('-');
  size_t pid_start = out->size();
  append_num(out, c.common_pid);
  size_t pid_len = out->size() - pid_start;
  if (pid_len < 7) out->append(7 - pid_len, ' ');
  *out += " [";
  append_zero_padded(out, static_cast<uint64_t>(c.cpu), 3);
  *out += "] ";
  // Flags, as the kernel's trace_print_lat_fmt() shows them for the bits it has used since
  // 3.x (irqs off 0x01, need-resched 0x04, hardirq 0x08, softirq 0x10, NMI 0x40).
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back((c.common_flags & 0x01) ? 'd' : '.');
  out->push_back((c.common_flags & 0x04) ? 'N' : '.');
  bool hard = c.common_flags & 0x08, soft = c.common_flags & 0x10, nmi = c.common_flags & 0x40;
  out->push_back(nmi ? (hard ? 'Z' : 'z') : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.');
  out->push_back((c.preempt_count & 0x0f) ? kHex[c.preempt_count & 0x0f] : '.');
  out->push_back((c.preempt_count >> 4) ? kHex[c.preempt_count >> 4] : '.');
  out->push_back(' ');
  uint64_t secs = c.ts_ns / 1000000000ull;
  uint64_t usecs = (c.ts_ns % 1000000000ull) / 1000ull;
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, secs);
  pad_left(out, std::string_view(buf, static_cast<size_t>(r.ptr - buf)), 5);
  out->push_back('.');
  append_zero_padded(out, usecs, 6);
  *out += ": ";
}

void kv(std::string* out, std::string_view key, std::string_view text) {
  *out += key;
  append_text(out, text);
}

void kv(std::string* out, std::string_view key, int64_t v) {
  *out += key;
  append_num(out, v);
}

void append_cpu3(std::string* out, int cpu) {
  append_zero_padded(out, static_cast<uint64_t>(cpu < 0 ? 0 : cpu), 3);
}

}  // namespace

void append_ftrace_line(std::string* out, const SchedEvent& event) {
  if (const auto* e = std::get_if<SwitchEvent>(&event)) {
    append_context(out, e->ctx, e->prev_comm);
    kv(out, "sched_switch: prev_comm=", e->prev_comm);
    kv(out, " prev_pid=", e->prev_pid);
    kv(out, " prev_prio=", e->prev_prio);
    kv(out, " prev_state=", e->prev_state);
    kv(out, " ==> next_comm=", e->next_comm);
    kv(out, " next_pid=", e->next_pid);
    kv(out, " next_prio=", e->next_prio);
  } else if (const auto* w = std::get_if<WakingEvent>(&event)) {
    append_context(out, w->ctx, w->ctx.common_comm);
    kv(out, w->enqueued ? "sched_wakeup: comm=" : "sched_waking: comm=", w->comm);
    kv(out, " pid=", w->pid);
    kv(out, " prio=", w->prio);
    *out += " target_cpu=";
    append_cpu3(out, w->target_cpu);
  } else if (const auto* m = std::get_if<MigrateEvent>(&event)) {
    append_context(out, m->ctx, m->ctx.common_comm);
    kv(out, "sched_migrate_task: comm=", m->comm);
    kv(out, " pid=", m->pid);
    kv(out, " prio=", m->prio);
    kv(out, " orig_cpu=", m->orig_cpu);
    kv(out, " dest_cpu=", m->dest_cpu);
  } else if (const auto* f = std::get_if<ForkEvent>(&event)) {
    // Recorded as task_newtask; written as the sched_process_fork line trace viewers know.
    append_context(out, f->ctx, f->ctx.common_comm.empty() ? f->parent_comm : f->ctx.common_comm);
    kv(out, "sched_process_fork: comm=", f->parent_comm);
    kv(out, " pid=", f->parent_pid);
    kv(out, " child_comm=", f->child_comm);
    kv(out, " child_pid=", f->child_pid);
  }
  *out += '\n';
}

Result<FtraceTextWriter> FtraceTextWriter::create(const std::string& path) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
  file.write(ftrace_text_header());
  return FtraceTextWriter(std::move(file));
}

void FtraceTextWriter::write(const SchedEvent& event) {
  line_.clear();
  append_ftrace_line(&line_, event);
  file_.write(line_);
}

Result<void> FtraceTextWriter::commit() {
  return file_.commit();
}

}  // namespace hearth::sched
