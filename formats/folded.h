// The folded-stacks format's own rules, shared by its writer (collectors/stacks) and its
// readers (render/): how a frame name is made safe for a line, and how the thread root frame
// is written and read back. (`root;…;leaf COUNT`, root first; see README "File formats".)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::formats {

// NAME made safe for one frame of a folded line: ';' (the frame separator) becomes ':', control
// characters (line ends, tabs) and DEL become '?'.
std::string folded_safe(std::string_view name);

// The root frame of a thread: "[NAME tid=TID]", or "[NAME]" when threads are merged by name.
std::string thread_root(std::string_view name, pid_t tid, bool merge_by_name);

// The root frame of a process, when several are sampled into one profile: "[NAME pid=PID]", or
// "[NAME]" when merged by name. A multi-threaded process's thread roots come under it.
std::string process_root(std::string_view name, pid_t pid, bool merge_by_name);

struct ThreadRoot {
  std::string_view name;  // what stands before " tid=" inside the brackets
  int64_t tid = -1;       // -1: merged by name ("[NAME]"), or no valid tid
};

// "[NAME tid=TID]" -> {NAME, TID}; "[NAME]" -> {NAME, -1}; nullopt when FRAME is not bracketed.
// NAME is a view into FRAME.
std::optional<ThreadRoot> parse_thread_root(std::string_view frame);

struct ProcessRoot {
  std::string_view name;  // what stands before " pid=" inside the brackets
  int64_t pid = -1;
};

// "[NAME pid=PID]" -> {NAME, PID}; nullopt for any other frame (a thread root, a title frame,
// a root merged by name). NAME is a view into FRAME. Under a process root come, as the stack
// sampler writes them (collectors/stacks/roots.h): the title frame when titles were asked for,
// then the thread roots when the process is multi-threaded, else the code of its one thread.
std::optional<ProcessRoot> parse_process_root(std::string_view frame);

}  // namespace hearth::formats
