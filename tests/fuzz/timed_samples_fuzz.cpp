// Fuzz target for the timed samples reader (formats/timed_samples.h).
//
// Input: the file's text. Invariants checked (abort with context on failure):
// - an error, and a damaged file's damage, is one line that starts with the file's name and a
//   line number, and quotes nothing unprintable;
// - what was read is sound: rounds in time order pointing at their changes in order, changes
//   naming declared threads and stacks, no control byte in a frame;
// - written back by the writer and read again, it comes back undamaged with the same samples
//   (every thread's root, state and stack at every round; declarations no sample uses are not
//   written), and the writer writes those bytes again; its processes (pid, name, title) too;
// - a process's title holds no control byte;
// - expand() walks it without a thread of another process.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/timed_samples.h"

namespace ts = hearth::timed_samples;

namespace {

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "timed_samples_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_message(const std::string& m, const std::string& path) {
  if (!m.starts_with(path + ":")) die("message does not name the file", m);
  if (m.find('\n') != std::string::npos) die("message is not one line", m);
  for (char c : m) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) die("message quotes an unprintable byte", m);
  }
}

// Every sample as text: what the file means.
std::string meaning(const ts::Samples& f) {
  std::string out;
  ts::expand(f, [&](size_t round, std::span<const ts::Sample> threads) {
    const ts::Round& r = f.rounds[round];
    out += "r " + std::to_string(r.time_ns) + " " + std::to_string(r.pid) + " " +
           std::to_string(r.copied) + " " + std::to_string(r.reused) + " " +
           std::to_string(r.stopped) + " " + std::to_string(r.stall_ns) +
           (r.after_exec ? " e\n" : "\n");
    for (const ts::Sample& s : threads) {
      out += f.threads[s.thread].root + "|" + s.state + "|" + f.stacks[s.stack] + "\n";
    }
  });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "in/stacks.samples.txt";
  hearth::Result<ts::Samples> f = ts::parse(text, path);
  if (!f) {
    check_message(f.error().message, path);
    return 0;
  }
  if (!f->damage.empty()) check_message(f->damage, path);
  uint64_t last_time = 0;
  for (size_t i = 0; i < f->rounds.size(); ++i) {
    const ts::Round& r = f->rounds[i];
    if (r.time_ns < last_time) die("rounds out of time order");
    last_time = r.time_ns;
    if (r.first_change > f->changes.size() ||
        (i > 0 && r.first_change < f->rounds[i - 1].first_change)) {
      die("a round's changes are out of place");
    }
  }
  if (!f->rounds.empty() ? f->rounds[0].first_change != 0 : !f->changes.empty()) {
    die("changes before the first round");
  }
  for (const ts::Change& c : f->changes) {
    if (c.thread >= f->threads.size()) die("a change names an undeclared thread");
    if (c.state != ts::kGone && c.stack >= f->stacks.size())
      die("a change names an undeclared stack");
  }
  for (const std::string& s : f->stacks) {
    for (char c : s) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) die("a control byte accepted", s);
    }
  }
  for (const ts::Process& p : f->processes) {
    for (char c : p.title) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) die("a title's control byte", p.title);
    }
  }
  ts::expand(*f, [&](size_t round, std::span<const ts::Sample> threads) {
    for (const ts::Sample& s : threads) {
      if (f->threads[s.thread].pid != f->rounds[round].pid)
        die("a thread in another process's sample");
      if (s.since_round > round) die("since_round after the round");
    }
  });
  const std::string again = ts::format(*f);
  hearth::Result<ts::Samples> g = ts::parse(again, path);
  if (!g) die("the writer's output does not read back", g.error().message);
  if (!g->damage.empty()) die("the writer's output reads back damaged", g->damage);
  if (g->rounds.size() != f->rounds.size() || g->mono_ns != f->mono_ns ||
      g->real_ns != f->real_ns || g->pid != f->pid || meaning(*g) != meaning(*f)) {
    die("the round trip changed the samples", again);
  }
  if (g->processes.size() != f->processes.size())
    die("the round trip changed the processes", again);
  for (size_t i = 0; i < f->processes.size(); ++i) {
    const ts::Process &a = f->processes[i], &b = g->processes[i];
    // The writer makes a name and a title folded-safe (';' -> ':'): compare what it wrote.
    if (a.pid != b.pid || b.title.find(';') != std::string::npos ||
        (a.title.find(';') == std::string::npos && a.title != b.title)) {
      die("the round trip changed a process", again);
    }
  }
  if (ts::format(*g) != again) die("the round trip changed the bytes", again);
  return 0;
}
