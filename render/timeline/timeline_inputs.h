// What the timeline reads: a recording's scheduler intervals (required), its slots, its timed
// stack samples, and the names of its threads (sched.states.tsv's comm, sched.preemptors.tsv's
// preemptors). Given a report directory, its files by name; given files, each one's kind from
// its first line. A damaged or cut-short file is read up to its damage (said in `damage`), so
// the timeline draws what came before it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/sched_intervals.h"
#include "formats/timed_samples.h"
#include "render/timeline/lanes.h"

namespace hearth::timeline {

// File names in a report directory.
inline constexpr const char* kIntervalsName = "sched.intervals.tsv";
inline constexpr const char* kSlotsName = "sched.slots.tsv";
inline constexpr const char* kStatesName = "sched.states.tsv";
inline constexpr const char* kPreemptorsName = "sched.preemptors.tsv";
inline constexpr const char* kSamplesName = "stacks.samples.txt";
inline constexpr const char* kRawSamplesName = "stacks.raw.txt";

// The files to read (empty: none of that kind).
struct Sources {
  std::string intervals;
  std::string slots;
  std::string states;
  std::string preemptors;
  std::string samples;  // timed samples, or raw samples (converted)
  std::vector<std::string> all() const;
};

// ARGS: one report directory, or files (a sched.intervals.tsv among them). Errors: a path that
// does not exist, a file of a kind the timeline does not read, two files of one kind, no
// intervals ("DIR: no sched.intervals.tsv in it (recorded by hearth sched or hearth record)").
Result<Sources> find_sources(const std::vector<std::string>& args);

struct Inputs {
  Sources sources;
  sched_intervals::IntervalsFile intervals;
  std::optional<sched_intervals::IntervalsFile> slots;
  std::optional<timed_samples::Samples> samples;
  Names names;
  // One line per damaged input: "PATH:LINE: MESSAGE" (what came before it is kept). A names
  // file that cannot be read is said here too (the lanes are then named by tid).
  std::vector<std::string> damage;
};

// Reads SOURCES. Errors: an intervals file that cannot be read, or whose header is bad (nothing
// to draw); every other problem is damage.
Result<Inputs> read_inputs(const Sources& sources);

}  // namespace hearth::timeline
