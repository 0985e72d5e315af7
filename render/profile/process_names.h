// The names processes are shown by: their title where it says more than their name (README,
// "Processes by their titles"). A server rewrites its command line to say what each process does
// (PostgreSQL's "postgres: checkpointer", "postgres: bench bench [local] SELECT"); the kernel's
// name (comm) is the same for all of them. Tables, chart rows, legends and the timeline's headers
// name a process by short_process_label(), with process_label() in full in their hover text; the
// pictures of frames (flamegraph, heatmap, moment view) name its root frame by process_label(),
// which they cut to the frame's width themselves, in full in the frame's hover. Pure, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "formats/timed_samples.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

// The most characters a picture, legend or table gives a process's label.
inline constexpr size_t kProcessLabelChars = 40;

// What a process with name NAME (comm) and title TITLE (/proc/PID/cmdline as ps shows it) is
// called: TITLE with its first word's directory left out ("/usr/lib/postgresql/15/bin/postgres
// -D /data" -> "postgres -D /data"), when that is not empty and not NAME; else NAME.
std::string process_label(std::string_view name, std::string_view title);

// TEXT in at most MAX characters (UTF-8 code points; MAX >= 8): TEXT itself when it fits; else
// its start and its last words with "…" between, the start taking about two thirds: the start
// ends at a blank when there is one in its second half, and the end is the last whole words that
// fit in the third (their blank kept, so "… SELECT" reads as a word), or the last characters
// when no word does. "postgres: bench bench [local] UPDATE waiting" in 40 ->
// "postgres: bench bench [local]… waiting".
std::string shorten(std::string_view text, size_t max);

// process_label() shortened to kProcessLabelChars.
std::string short_process_label(std::string_view name, std::string_view title);

// Process titles by pid, as a recording's timed samples keep them (`# process ... title=`).
using ProcessTitles = std::unordered_map<int64_t, std::string>;
ProcessTitles process_titles(const timed_samples::Samples& samples);

// FRAME, a process root "[NAME pid=PID]", as "[LABEL pid=PID]" with LABEL process_label() of
// NAME and PID's title in TITLES (folded-safe); FRAME itself when it is no process root, PID has
// no title there, or the label is NAME.
std::string titled_process_root(std::string_view frame, const ProcessTitles& titles);

// Every thread root of SAMPLES whose process root has a title: its process root titled, so
// whatever names threads and processes by their roots (the heatmap, the timeline, the moment
// view) says the title.
void title_process_roots(timed_samples::Samples* samples);

// The same for the root frames of TREE (finalized).
void title_process_roots(FrameTree* tree, const ProcessTitles& titles);

}  // namespace hearth::profile
