#include "render/report/sampled_threads.h"

#include <map>
#include <optional>

#include "formats/folded.h"
#include "render/profile/filters.h"

namespace hearth::report {
namespace {

using profile::FrameTree;
using profile::NodeId;

// FRAME names a thread of a process: "[NAME tid=TID]" with a tid.
std::optional<formats::ThreadRoot> thread_under_process(std::string_view frame) {
  auto t = formats::parse_thread_root(frame);
  if (!t || t->tid < 0) return std::nullopt;
  return t;
}

template <typename F>
void for_children(const FrameTree& tree, NodeId node, F&& f) {
  for (NodeId c = tree.node(node).first_child; c != profile::kNone; c = tree.node(c).next_sibling)
    f(c);
}

// The threads under process root NODE (PROC), appended to OUT.
void process_threads(const FrameTree& tree, NodeId node, const formats::ProcessRoot& proc,
                     std::string_view root, std::vector<SampledThread>* out) {
  std::map<int64_t, size_t> by_tid;  // index in OUT
  double in_threads = 0;
  auto add = [&](NodeId c, const formats::ThreadRoot& t) {
    auto [it, fresh] = by_tid.emplace(t.tid, out->size());
    if (fresh) {
      out->push_back({.name = std::string(t.name),
                      .tid = t.tid,
                      .root = std::string(tree.name(tree.node(c).name)),
                      .samples = 0,
                      .process = std::string(proc.name),
                      .pid = proc.pid});
    }
    const double n = tree.total(c).value;
    (*out)[it->second].samples += n;
    in_threads += n;
  };
  for_children(tree, node, [&](NodeId c) {
    if (auto t = thread_under_process(tree.name(tree.node(c).name))) return add(c, *t);
    // A title frame: the thread roots come under it.
    for_children(tree, c, [&](NodeId g) {
      if (auto t = thread_under_process(tree.name(tree.node(g).name))) add(g, *t);
    });
  });
  // The rest is the one thread of a single-threaded process.
  const double rest = tree.total(node).value - in_threads;
  if (rest > 0 || by_tid.empty()) {
    out->push_back({.name = std::string(proc.name),
                    .tid = proc.pid,
                    .root = std::string(root),
                    .samples = rest,
                    .process = std::string(proc.name),
                    .pid = proc.pid});
  }
}

}  // namespace

std::vector<SampledThread> sampled_threads(const FrameTree& tree) {
  std::vector<SampledThread> out;
  for_children(tree, profile::kRoot, [&](NodeId c) {
    std::string_view root = tree.name(tree.node(c).name);
    if (auto proc = formats::parse_process_root(root)) {
      return process_threads(tree, c, *proc, root, &out);
    }
    if (!profile::is_thread_root(root)) return;
    auto parsed = formats::parse_thread_root(root);
    out.push_back({.name = std::string(profile::thread_name(root)),
                   .tid = parsed ? parsed->tid : -1,
                   .root = std::string(root),
                   .samples = tree.total(c).value,
                   .process = {},
                   .pid = -1});
  });
  return out;
}

std::string chart_name(const SampledThread& t) {
  if (t.pid < 0 || (t.tid == t.pid && t.root.find(" pid=") != std::string::npos)) return t.name;
  return chart_name(t.process, t.pid, t.name);
}

std::string chart_name(const std::string& process, int64_t pid, const std::string& thread) {
  return process + " " + std::to_string(pid) + ": " + thread;
}

}  // namespace hearth::report
