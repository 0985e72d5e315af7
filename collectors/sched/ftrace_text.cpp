#include "collectors/sched/ftrace_text.h"

#include <charconv>
#include <cstdio>

#include "common/text_fields.h"

namespace hearth::sched {

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
    text::append_column_text(out, comm);
  }
  out->push_back('-');
  size_t pid_start = out->size();
  text::append_decimal(out, c.common_pid);
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
  text::append_column_text(out, text);
}

void kv(std::string* out, std::string_view key, int64_t v) {
  *out += key;
  text::append_decimal(out, v);
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
