// The timeline's model: one lane per thread, coloured by scheduler state over time, from the
// scheduler's intervals and slots (formats/sched_intervals.h), with each timed stack sample
// (formats/timed_samples.h) as a tick on its thread's lane. Lanes are ordered by process, and
// within a process the main thread first, then by pool (common/pool_name.h: "worker-1".."worker-8"
// are one pool, drawn as one expandable group), then by tid. The static picture
// (timeline_picture.h) and the page's data (timeline_data.h) are writers over this model.
//
// Times are CLOCK_MONOTONIC ns, the scheduler tracer's clock; the samples' times are put on it
// through their file's mono_ns. Plain data; the model points into the files it was built from,
// which must outlive it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/pattern.h"
#include "formats/sched_intervals.h"
#include "formats/timed_samples.h"

namespace hearth::timeline {

// What a lane's colour says: sched_intervals::StateClass, in its order (on CPU, runnable,
// sleeping, blocked, stopped, other).
inline constexpr int kClasses = 6;
using ClassTimes = std::array<double, kClasses>;  // ns per state class

// Who is who: thread and process names from the recording's other files.
struct Names {
  std::unordered_map<int64_t, std::string> threads;    // tid -> name
  std::unordered_map<int64_t, std::string> processes;  // pid -> name
};

// One stack sample of one thread.
struct Tick {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t round = 0;    // index into Samples::rounds
  uint32_t thread = 0;   // index into Samples::threads
  uint32_t stack = 0;    // index into Samples::stacks
  char state = '?';      // as sampled (/proc's letter)
};

struct Lane {
  int64_t tid = 0;
  int64_t pid = 0;                        // 0: unknown
  std::string name;                       // the thread's name; "tid N" when no file names it
  std::string pool;                       // pool_name(name)
  size_t first = 0, count = 0;            // its intervals: intervals->intervals[first, +count)
  size_t slot_first = 0, slot_count = 0;  // its slots: slots->slots[slot_first, +slot_count)
  std::vector<Tick> ticks;                // by time
};

// Consecutive lanes of one process: a pool of two or more threads, or one lane.
struct Group {
  std::string name;             // the pool ("worker-*"), or the lane's name
  std::vector<uint32_t> lanes;  // indexes into Model::lanes, ascending
};

struct Process {
  int64_t pid = 0;    // 0: threads whose process is not known
  std::string name;   // by its title, shortened, where it has one (profile::process_names.h)
  std::string title;  // its title in full ("": none recorded); the hover text says it
  std::vector<Group> groups;  // in lane order
};

struct Model {
  const sched_intervals::IntervalsFile* intervals = nullptr;  // not owned
  const sched_intervals::IntervalsFile* slots = nullptr;      // not owned; may be null
  const timed_samples::Samples* samples = nullptr;            // not owned; may be null
  // The domain drawn: the scheduler's window, widened to take in every sample.
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  // Before whole_from_ns the threads' time is known per slot (slot_ns long) only; from it on,
  // as whole intervals. whole_from_ns == the window's start: intervals only.
  uint64_t whole_from_ns = 0;
  uint64_t slot_ns = 0;
  // Before untraced_until_ns (<= whole_from_ns) the slots are not the tracer's but another
  // source's, read every untraced_resolution_ns (formats/sched_intervals.h, `# untraced`: hearth
  // watch's /proc reads from before its trigger). 0: every slot is the tracer's.
  uint64_t untraced_until_ns = 0;
  uint64_t untraced_resolution_ns = 0;
  uint64_t window_start_ns = 0;  // the scheduler's window
  uint64_t window_end_ns = 0;
  // The samples' time 0 on CLOCK_MONOTONIC: their file's mono_ns, or (a converted raw file,
  // which has none) the window's start, and then samples_aligned is false.
  uint64_t samples_mono_ns = 0;
  bool samples_aligned = false;
  // Time 0 of the pictures' axes and of their times in seconds: the samples' time 0 when there
  // are samples (so a time means the same instant on the heatmap's page), else the window's
  // start. The domain may start a little before it (negative seconds), or after it (the
  // sampler's first sample some time after its time 0).
  uint64_t origin_ns = 0;
  std::vector<Lane> lanes;         // display order
  std::vector<Process> processes;  // by pid, unknown (0) last
  uint64_t ticks = 0;              // over every lane
  size_t left_out = 0;             // threads --only-threads left out
};

struct ModelOptions {
  const Pattern* only_threads = nullptr;  // keep the lanes whose name matches (searched)
};

// Builds the lanes of INTERVALS (a sched.intervals.tsv, read whole or up to its damage), with
// SLOTS (a sched.slots.tsv of the same recording; may be null) and SAMPLES (may be null). A
// thread with slots or samples but no intervals gets a lane too.
Model build_model(const sched_intervals::IntervalsFile& intervals,
                  const sched_intervals::IntervalsFile* slots,
                  const timed_samples::Samples* samples, const Names& names,
                  const ModelOptions& options = {});

// LANE's time per state class in each of COLUMNS equal columns of [FROM, TO) (ns): its
// intervals' overlaps, and its slots' times spread evenly over each slot. Time the lane has no
// data for (before the thread's first event, after its exit) counts in no class.
std::vector<ClassTimes> column_times(const Model& model, const Lane& lane, uint64_t from,
                                     uint64_t to, size_t columns);

// LANE's interval holding T (start <= T < end), or null.
const sched_intervals::Interval* interval_at(const Model& model, const Lane& lane, uint64_t t);

// LANE's slot holding T, or null.
const sched_intervals::Slot* slot_at(const Model& model, const Lane& lane, uint64_t t);

// Who a `by` tid is, for people: "worker-3 (tid 4246)", "tid 77" (no name known), "the idle
// task" (0).
std::string who(const Names& names, int64_t tid);

// The class's words: "on CPU", "runnable", "sleeping", "blocked", "stopped", "other".
const char* class_name(int cls);

}  // namespace hearth::timeline
