#include "collectors/sched/decoder.h"

#include <sched.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "collectors/proc/threads.h"
#include "collectors/sched/tracefs_instance.h"
#include "common/file_io.h"

namespace hearth::sched {
namespace {

uint64_t num(const tep_format_field* f, const void* data) {
  unsigned long long v = 0;
  if (f != nullptr) tep_read_number_field(const_cast<tep_format_field*>(f), data, &v);
  return v;
}

int32_t num32(const tep_format_field* f, const void* data) {
  return static_cast<int32_t>(static_cast<uint32_t>(num(f, data)));
}

// A char[N] or __data_loc/__rel_loc char[] field, up to its NUL.
std::string str(const tep_format_field* f, const void* data, int size) {
  if (f == nullptr) return {};
  const char* base = static_cast<const char*>(data);
  size_t off = static_cast<size_t>(f->offset);
  size_t len = static_cast<size_t>(f->size);
  if (f->flags & TEP_FIELD_IS_DYNAMIC) {
    uint64_t v = num(f, data);
    off = v & 0xffff;
    len = (v >> 16) & 0xffff;
    if (f->flags & TEP_FIELD_IS_RELATIVE) off += static_cast<size_t>(f->offset + f->size);
  }
  if (off + len > static_cast<size_t>(size)) return {};
  return std::string(base + off, strnlen(base + off, len));
}

// An event's id and the fields we read, found by name in its format file.
struct EventFields {
  int id = -1;
  tep_event* event = nullptr;
  tep_format_field* f[7] = {};  // in the order the lookup names them
};

}  // namespace

struct Decoder::Impl {
  ~Impl() {
    trace_seq_destroy(&seq_);
    if (tep_ != nullptr) tep_free(tep_);
  }

  Result<void> init() {
    trace_seq_init(&seq_);
    // Only the formats we decode (tracefs_local_events() would also parse every event and
    // /proc/kallsyms: a second of start-up for nothing we use).
    tep_ = tep_alloc();
    if (tep_ == nullptr) return fail("out of memory");
    tep_set_long_size(tep_, static_cast<int>(sizeof(long)));
    tep_set_page_size(tep_, static_cast<int>(::sysconf(_SC_PAGESIZE)));
    tep_set_file_bigendian(tep_, tep_is_local_bigendian(tep_) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    auto header = read_file(std::string(kTracingDir) + "/events/header_page");
    if (!header)
      return fail("cannot read the ring buffer's page format: " + header.error().message);
    tep_parse_header_page(tep_, header->data(), header->size(), static_cast<int>(sizeof(long)));
    const std::pair<const char*, const char*> events[] = {{"sched", "sched_switch"},
                                                          {"sched", "sched_waking"},
                                                          {"sched", "sched_wakeup"},
                                                          {"sched", "sched_migrate_task"},
                                                          {kNewTaskSystem, kNewTaskEvent}};
    for (const auto& [system, name] : events) {
      auto format =
          read_file(std::string(kTracingDir) + "/events/" + system + "/" + name + "/format");
      if (!format) continue;  // reported below when we need it
      tep_parse_event(tep_, format->data(), format->size(), system);
    }
    RETURN_IF_ERROR(lookup("sched", "sched_switch", &switch_,
                           {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
                            "next_pid", "next_prio"}));
    // Optional: enabling them later reports a missing one with its own message.
    lookup("sched", "sched_waking", &waking_, {"comm", "pid", "prio", "target_cpu"});
    lookup("sched", "sched_wakeup", &wakeup_, {"comm", "pid", "prio", "target_cpu"});
    lookup("sched", "sched_migrate_task", &migrate_,
           {"comm", "pid", "prio", "orig_cpu", "dest_cpu"});
    lookup(kNewTaskSystem, kNewTaskEvent, &newtask_, {"pid", "comm", "clone_flags"});
    common_pid_ = tep_find_common_field(switch_.event, "common_pid");
    common_flags_ = tep_find_common_field(switch_.event, "common_flags");
    common_preempt_ = tep_find_common_field(switch_.event, "common_preempt_count");
    return {};
  }

  // Decodes a record of one of our events into *OUT; false for anything else.
  bool decode(tep_record* rec, SchedEvent* out) {
    int type = tep_data_type(tep_, rec);
    const void* d = rec->data;
    int sz = rec->size;
    EventContext ctx;
    ctx.ts_ns = rec->ts;
    ctx.cpu = rec->cpu;
    ctx.common_pid = num32(common_pid_, d);
    ctx.common_flags = static_cast<uint8_t>(num(common_flags_, d));
    ctx.preempt_count = static_cast<uint8_t>(num(common_preempt_, d));
    if (type == switch_.id) {
      SwitchEvent e;
      e.ctx = std::move(ctx);
      tep_format_field* const* f = switch_.f;
      e.prev_comm = str(f[0], d, sz);
      e.prev_pid = num32(f[1], d);
      e.prev_prio = num32(f[2], d);
      e.prev_state = state_letters(num(f[3], d), rec);
      e.next_comm = str(f[4], d, sz);
      e.next_pid = num32(f[5], d);
      e.next_prio = num32(f[6], d);
      *out = std::move(e);
      return true;
    }
    if (type == waking_.id || type == wakeup_.id) {
      WakingEvent e;
      e.ctx = std::move(ctx);
      e.enqueued = type == wakeup_.id;
      tep_format_field* const* f = e.enqueued ? wakeup_.f : waking_.f;
      e.comm = str(f[0], d, sz);
      e.pid = num32(f[1], d);
      e.prio = num32(f[2], d);
      e.target_cpu = num32(f[3], d);
      *out = std::move(e);
      return true;
    }
    if (type == migrate_.id) {
      MigrateEvent e;
      e.ctx = std::move(ctx);
      tep_format_field* const* f = migrate_.f;
      e.comm = str(f[0], d, sz);
      e.pid = num32(f[1], d);
      e.prio = num32(f[2], d);
      e.orig_cpu = num32(f[3], d);
      e.dest_cpu = num32(f[4], d);
      *out = std::move(e);
      return true;
    }
    if (type == newtask_.id) {
      ForkEvent e;
      e.ctx = std::move(ctx);
      tep_format_field* const* f = newtask_.f;
      e.parent_pid = e.ctx.common_pid;  // the task that called clone()
      e.child_pid = num32(f[0], d);
      e.child_comm = str(f[1], d, sz);
      e.parent_comm = e.child_comm;  // copied from the parent a moment ago
      e.thread = (num(f[2], d) & CLONE_THREAD) != 0;
      *out = std::move(e);
      return true;
    }
    return false;
  }

  Result<void> lookup(const char* system, const char* name, EventFields* out,
                      std::initializer_list<const char*> fields) {
    out->event = tep_find_event_by_name(tep_, system, name);
    if (out->event == nullptr) {
      return fail(std::string("the kernel has no ") + system + ":" + name +
                  " event — it needs CONFIG_TRACEPOINTS and the scheduler tracepoints");
    }
    size_t i = 0;
    for (const char* field : fields) {
      tep_format_field* f = tep_find_field(out->event, field);
      if (f == nullptr) {
        return fail(std::string(system) + ":" + name + " has no field " + field +
                    " on this kernel: unsupported format");
      }
      out->f[i++] = f;
    }
    out->id = out->event->id;
    return {};
  }

  // The letters the kernel prints for this prev_state value, from the event's print fmt:
  // correct for every kernel's TASK_REPORT bits and preemption flag. Cached per raw value.
  const std::string& state_letters(uint64_t raw, tep_record* rec) {
    auto it = letters_.find(raw);
    if (it != letters_.end()) return it->second;
    trace_seq_reset(&seq_);
    tep_print_event(tep_, &seq_, rec, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&seq_);
    std::string_view text(seq_.buffer, seq_.len);
    std::string letters = raw == 0 ? "R" : "?";
    size_t pos = text.find("prev_state=");
    if (pos != std::string_view::npos) {
      pos += std::strlen("prev_state=");
      size_t end = text.find(' ', pos);
      letters = std::string(text.substr(pos, end == std::string_view::npos ? end : end - pos));
    }
    return letters_.emplace(raw, std::move(letters)).first->second;
  }

  tep_handle* tep_ = nullptr;
  trace_seq seq_{};
  EventFields switch_, waking_, wakeup_, migrate_, newtask_;
  tep_format_field* common_pid_ = nullptr;
  tep_format_field* common_flags_ = nullptr;
  tep_format_field* common_preempt_ = nullptr;
  std::unordered_map<uint64_t, std::string> letters_;
};

Decoder::Decoder() : impl_(std::make_unique<Impl>()) {}
Decoder::~Decoder() = default;

Result<void> Decoder::init() {
  return impl_->init();
}

bool Decoder::decode(tep_record* rec, SchedEvent* out) {
  return impl_->decode(rec, out);
}

}  // namespace hearth::sched
