#include "render/profile/pprof_labels.h"

#include <charconv>
#include <system_error>

#include "formats/folded.h"
#include "render/profile/filters.h"

namespace hearth::profile {
namespace {

// "[NAME tid=TID]" or "[NAME]"; with PID (and no process): perf's "NAME-PID/TID".
std::string thread_frame(std::string_view name, int64_t pid, int64_t tid, bool perf_form) {
  std::string s;
  if (perf_form) {
    s.append(name);
    s += '-';
    s += std::to_string(pid);
    s += '/';
    s += std::to_string(tid);
    return s;
  }
  s += '[';
  s.append(name);
  if (tid >= 0) {
    s += " tid=";
    s += std::to_string(tid);
  }
  s += ']';
  return s;
}

std::string process_frame(std::string_view name, int64_t pid) {
  std::string s = "[";
  s.append(name);
  s += " pid=";
  s += std::to_string(pid);
  s += ']';
  return s;
}

// A thread's root FRAME as labels, when they write it back exactly.
bool thread_labels(std::string_view frame, bool under_process, RootLabels* labels) {
  if (!is_thread_root(frame)) return false;
  if (auto root = formats::parse_thread_root(frame)) {
    if (root->name.empty() || thread_frame(root->name, -1, root->tid, false) != frame) {
      return false;
    }
    labels->thread = root->name;
    labels->tid = root->tid;
    return true;
  }
  if (under_process) return false;  // perf's form carries its own pid
  // perf's comm-PID/TID.
  std::string_view name = thread_name(frame);
  size_t slash = frame.rfind('/');
  std::string_view pid_digits = frame.substr(name.size() + 1, slash - name.size() - 1);
  std::string_view tid_digits = frame.substr(slash + 1);
  int64_t pid = 0, tid = 0;
  auto [pid_end, pid_error] =
      std::from_chars(pid_digits.data(), pid_digits.data() + pid_digits.size(), pid);
  auto [tid_end, tid_error] =
      std::from_chars(tid_digits.data(), tid_digits.data() + tid_digits.size(), tid);
  if (name.empty() || pid_error != std::errc() || tid_error != std::errc() ||
      thread_frame(name, pid, tid, true) != frame) {
    return false;  // leading zeros, or digits past int64
  }
  labels->thread = name;
  labels->pid = pid;
  labels->tid = tid;
  return true;
}

}  // namespace

size_t take_root_labels(std::span<const std::string_view> frames, RootLabels* labels) {
  *labels = {};
  if (frames.empty()) return 0;
  if (auto p = formats::parse_process_root(frames[0])) {
    if (p->name.empty() || p->pid < 0 || process_frame(p->name, p->pid) != frames[0]) return 0;
    labels->process = p->name;
    labels->pid = p->pid;
    if (frames.size() > 1 && thread_labels(frames[1], true, labels)) return 2;
    return 1;
  }
  return thread_labels(frames[0], false, labels) ? 1 : 0;
}

void root_frames(const RootLabels& labels, std::string* process_root, std::string* thread_root) {
  process_root->clear();
  thread_root->clear();
  if (!labels.process.empty()) *process_root = process_frame(labels.process, labels.pid);
  if (!labels.thread.empty()) {
    bool perf_form = labels.process.empty() && labels.pid >= 0 && labels.tid >= 0;
    *thread_root = thread_frame(labels.thread, labels.pid, labels.tid, perf_form);
  }
}

}  // namespace hearth::profile
