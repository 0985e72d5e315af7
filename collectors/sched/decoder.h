// Decodes raw ring-buffer records of the sched events into SchedEvents. The layout comes from
// the events' format files under tracefs (parsed by libtraceevent); fields are found by name
// (tep_find_field) and read with tep_read_number_field: nothing about the record layout is
// hard-coded. prev_state letters come from sched_switch's own print fmt (tep_print_event, once
// per distinct raw value), so every kernel's TASK_REPORT bits and preemption flag decode right.
//
// Not thread-safe; one per reader.
#pragma once

#include <memory>

#include "collectors/sched/events.h"
#include "common/result.h"

struct tep_record;
struct tep_handle;

namespace hearth::sched {

class Decoder {
 public:
  Decoder();
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Reads header_page and the sched formats from tracefs. Fails when sched_switch is missing.
  Result<void> init();

  // Decodes REC (data, size, ts, cpu) into *OUT; false for events we don't decode.
  bool decode(tep_record* rec, SchedEvent* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::sched
