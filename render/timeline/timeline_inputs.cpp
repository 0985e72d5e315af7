#include "render/timeline/timeline_inputs.h"

#include <filesystem>
#include <fstream>

#include "common/file_io.h"
#include "formats/raw_samples.h"
#include "formats/sched_tsv.h"
#include "render/profile/process_names.h"

namespace hearth::timeline {
namespace {

namespace fs = std::filesystem;

// The first line of PATH (at most 200 bytes of it); empty when unreadable.
std::string first_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  char c;
  while (line.size() < 200 && in.get(c) && c != '\n') line.push_back(c);
  return line;
}

// Which of SOURCES' fields a file with this first line fills; null when none.
std::string* slot_for(Sources* s, const std::string& line) {
  if (line.starts_with("# hearth sched.intervals ")) return &s->intervals;
  if (line.starts_with("# hearth sched.slots ")) return &s->slots;
  if (line.starts_with("# hearth sched.states ")) return &s->states;
  if (line.starts_with("# hearth sched.preemptors ")) return &s->preemptors;
  if (line.starts_with(timed_samples::kMagic) || line.starts_with(raw_samples::kRawMagic))
    return &s->samples;
  return nullptr;
}

}  // namespace

std::vector<std::string> Sources::all() const {
  std::vector<std::string> out;
  for (const std::string* p : {&intervals, &slots, &states, &preemptors, &samples}) {
    if (!p->empty()) out.push_back(*p);
  }
  return out;
}

Result<Sources> find_sources(const std::vector<std::string>& args) {
  Sources s;
  if (args.empty()) return fail("no input: give a report directory or a sched.intervals.tsv");
  std::error_code ec;
  if (args.size() == 1 && fs::is_directory(args[0], ec)) {
    const fs::path dir(args[0]);
    auto pick = [&](std::string* field, const char* name) {
      if (fs::is_regular_file(dir / name, ec)) *field = (dir / name).string();
    };
    pick(&s.intervals, kIntervalsName);
    pick(&s.slots, kSlotsName);
    pick(&s.states, kStatesName);
    pick(&s.preemptors, kPreemptorsName);
    pick(&s.samples, kSamplesName);
    if (s.samples.empty()) pick(&s.samples, kRawSamplesName);
    if (s.intervals.empty()) {
      return fail(args[0] + ": no " + kIntervalsName +
                  " in it (written by hearth sched -o DIR or hearth record -o DIR)");
    }
    return s;
  }
  for (const std::string& a : args) {
    if (fs::is_directory(a, ec)) {
      return fail(a + ": a directory among other inputs: give one report directory, or files");
    }
    if (!fs::exists(a, ec)) return fail(a + ": no such file");
    std::string* field = slot_for(&s, first_line(a));
    if (field == nullptr) {
      return fail(a +
                  ": not a file the timeline reads (sched.intervals.tsv, sched.slots.tsv, "
                  "sched.states.tsv, sched.preemptors.tsv, stacks.samples.txt, raw samples)");
    }
    if (!field->empty()) return fail(a + ": a second file of the kind of " + *field);
    *field = a;
  }
  if (s.intervals.empty()) {
    return fail(
        "no sched.intervals.tsv among the inputs (written by hearth sched -o DIR or "
        "hearth record -o DIR)");
  }
  return s;
}

Result<Inputs> read_inputs(const Sources& sources) {
  Inputs in;
  in.sources = sources;
  ASSIGN_OR_RETURN(std::string text, read_file(sources.intervals));
  Error problem;
  in.intervals = sched_intervals::parse_intervals_prefix(text, sources.intervals, &problem);
  if (!problem.message.empty()) {
    // A bad header leaves nothing: no window to draw.
    if (in.intervals.header.window_end_ns == 0 && in.intervals.intervals.empty())
      return std::unexpected(problem);
    in.damage.push_back(problem.message);
  }
  text.clear();
  text.shrink_to_fit();
  if (!sources.slots.empty()) {
    auto slots = read_file(sources.slots);
    if (!slots) {
      in.damage.push_back(slots.error().message);
    } else {
      Error slot_problem;
      sched_intervals::IntervalsFile f =
          sched_intervals::parse_intervals_prefix(*slots, sources.slots, &slot_problem);
      if (!slot_problem.message.empty()) in.damage.push_back(slot_problem.message);
      if (f.header.kind == sched_intervals::FileKind::kSlots && !f.slots.empty()) {
        in.slots = std::move(f);
      }
    }
  }
  if (!sources.samples.empty()) {
    auto samples = timed_samples::read(sources.samples);
    if (!samples) {
      in.damage.push_back(samples.error().message);
    } else {
      if (!samples->damage.empty()) in.damage.push_back(samples->damage);
      profile::title_process_roots(&*samples);
      if (!samples->rounds.empty()) in.samples = std::move(*samples);
    }
  }
  if (!sources.states.empty()) {
    auto states = sched_tsv::read_sched_tsv(sources.states);
    if (!states) {
      in.damage.push_back(states.error().message);
    } else {
      for (const sched_tsv::ThreadStates& t : states->states) {
        in.names.threads[t.tid] = t.comm;
        if (t.tid == t.pid) in.names.processes[t.pid] = t.comm;
      }
    }
  }
  if (!sources.preemptors.empty()) {
    auto pre = sched_tsv::read_sched_tsv(sources.preemptors);
    if (!pre) {
      in.damage.push_back(pre.error().message);
    } else {
      for (const sched_tsv::PreemptorRow& p : pre->preemptors) {
        in.names.threads.try_emplace(p.preemptor_tid, p.preemptor_comm);
        in.names.threads.try_emplace(p.tid, p.comm);
      }
    }
  }
  return in;
}

}  // namespace hearth::timeline
