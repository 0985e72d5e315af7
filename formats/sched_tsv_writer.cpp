// The sched TSVs' writer (formats/sched_tsv.h): header, column names, rows.

#include "common/atomic_file.h"
#include "common/text_fields.h"
#include "formats/sched_tsv.h"

namespace hearth::sched_tsv {

void append_header(std::string* out, std::string_view kind, int version, const SchedHeader& h) {
  *out += "# hearth sched.";
  *out += kind;
  *out += ' ';
  text::append_decimal(out, version);
  *out += '\n';
  if (h.targets.empty()) {
    *out += "# target\tall";
    if (h.cpu >= 0) {
      *out += "\tcpu=";
      text::append_decimal(out, h.cpu);
    }
    *out += '\n';
  }
  for (const SchedTarget& t : h.targets) {
    *out += "# target\tpid=";
    text::append_decimal(out, t.pid);
    *out += "\tcomm=";
    text::append_column_text(out, t.comm);
    if (h.inherit) *out += "\tinherit";
    *out += '\n';
  }
  *out += "# window_ns\t";
  text::append_decimal(out, h.window_start_ns);
  *out += '\t';
  text::append_decimal(out, h.window_end_ns);
  *out += '\t';
  text::append_decimal(
      out, h.window_end_ns >= h.window_start_ns ? h.window_end_ns - h.window_start_ns : 0);
  *out += "\n# events\tsched_switch=";
  text::append_decimal(out, h.sched_switch);
  *out += "\tsched_waking=";
  text::append_decimal(out, h.sched_waking);
  *out += "\tsched_wakeup=";
  text::append_decimal(out, h.sched_wakeup);
  *out += "\tsched_migrate_task=";
  text::append_decimal(out, h.sched_migrate_task);
  *out += "\n# lost\t";
  text::append_decimal(out, h.lost);
  *out += '\n';
}

namespace {

// Appends "\tV" for each value.
template <typename... V>
void cols(std::string* out, V... values) {
  ((*out += '\t', text::append_decimal(out, static_cast<uint64_t>(values))), ...);
}

}  // namespace

std::string format_states(const SchedHeader& header, std::span<const ThreadStates> rows) {
  std::string out;
  append_header(&out, "states", kStatesVersion, header);
  // Version 2 added the last two columns; the first twelve are version 1's.
  out +=
      "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\t"
      "switches_runnable\tswitches_sleeping\tswitches_blocked\tswitches_other\t"
      "stopped_ns\tswitches_stopped\n";
  for (const ThreadStates& s : rows) {
    text::append_decimal(&out, s.tid);
    out += '\t';
    text::append_column_text(&out, s.comm);
    out += '\t';
    text::append_decimal(&out, s.pid);
    cols(&out, s.on_cpu_ns, s.runnable_ns, s.sleeping_ns, s.blocked_ns, s.other_ns,
         s.switches_runnable, s.switches_sleeping, s.switches_blocked, s.switches_other,
         s.stopped_ns, s.switches_stopped);
    out += '\n';
  }
  return out;
}

std::string format_tenancy(const SchedHeader& header, std::span<const TenancyRow> rows) {
  std::string out;
  append_header(&out, "tenancy", kOtherFilesVersion, header);
  out += "tid\tcomm\tcpu\ton_cpu_ns\tswitch_ins\n";
  for (const TenancyRow& r : rows) {
    text::append_decimal(&out, r.tid);
    out += '\t';
    text::append_column_text(&out, r.comm);
    out += '\t';
    text::append_decimal(&out, r.cpu);
    cols(&out, r.on_cpu_ns, r.switch_ins);
    out += '\n';
  }
  return out;
}

std::string format_preemptors(const SchedHeader& header, std::span<const PreemptorRow> rows) {
  std::string out;
  append_header(&out, "preemptors", kOtherFilesVersion, header);
  out += "tid\tcomm\tpreemptor_pid\tpreemptor_tid\tpreemptor_comm\tcount\ttime_ns\n";
  for (const PreemptorRow& r : rows) {
    text::append_decimal(&out, r.tid);
    out += '\t';
    text::append_column_text(&out, r.comm);
    out += '\t';
    text::append_decimal(&out, r.preemptor_pid);
    out += '\t';
    text::append_decimal(&out, r.preemptor_tid);
    out += '\t';
    text::append_column_text(&out, r.preemptor_comm);
    cols(&out, r.count, r.time_ns);
    out += '\n';
  }
  return out;
}

std::string format_wakeups(const SchedHeader& header, std::span<const WakeupRow> rows) {
  std::string out;
  append_header(&out, "wakeups", kOtherFilesVersion, header);
  out += "tid\tcomm\twakeups\tp50_ns\tp90_ns\tp99_ns\tmax_ns\tmigrations";
  for (int k = 0; k < kWakeupBuckets - 1; ++k) {
    out += k < 10 ? "\tle_" + std::to_string(1 << k) + "us"
                  : "\tle_" + std::to_string(1 << (k - 10)) + "ms";
  }
  out += "\tgt_16ms\n";
  for (const WakeupRow& r : rows) {
    text::append_decimal(&out, r.tid);
    out += '\t';
    text::append_column_text(&out, r.comm);
    cols(&out, r.wakeups, r.p50_ns, r.p90_ns, r.p99_ns, r.max_ns, r.migrations);
    for (uint64_t c : r.histogram) cols(&out, c);
    out += '\n';
  }
  return out;
}

std::string format_cpu(const SchedHeader& header, std::span<const CpuRow> rows) {
  std::string out;
  append_header(&out, "cpu", kOtherFilesVersion, header);
  out += "tid\tpid\tcomm\ton_cpu_ns\tswitch_ins\tlongest_off_ns\n";
  for (const CpuRow& r : rows) {
    text::append_decimal(&out, r.tid);
    out += '\t';
    text::append_decimal(&out, r.pid);
    out += '\t';
    text::append_column_text(&out, r.comm);
    cols(&out, r.on_cpu_ns, r.switch_ins, r.longest_off_ns);
    out += '\n';
  }
  return out;
}

Result<void> write_sched_tsvs(const std::string& dir, const SchedHeader& header,
                              const SchedTables& t, bool wakeups, bool cpu_view) {
  RETURN_IF_ERROR(
      write_file_atomically(dir + "/sched.states.tsv", format_states(header, t.states)));
  RETURN_IF_ERROR(
      write_file_atomically(dir + "/sched.tenancy.tsv", format_tenancy(header, t.tenancy)));
  RETURN_IF_ERROR(write_file_atomically(dir + "/sched.preemptors.tsv",
                                        format_preemptors(header, t.preemptors)));
  if (wakeups) {
    RETURN_IF_ERROR(
        write_file_atomically(dir + "/sched.wakeups.tsv", format_wakeups(header, t.wakeups)));
  }
  if (cpu_view) {
    RETURN_IF_ERROR(write_file_atomically(dir + "/sched.cpu.tsv", format_cpu(header, t.cpu)));
  }
  return {};
}

}  // namespace hearth::sched_tsv
