// Fuzz target for the raw samples reader (formats/raw_samples.h).
//
// Input: the file's text. Invariants checked (abort with context on failure):
// - an error is one line, starts with the file's name and a line number (or says the file is
//   empty), and quotes nothing unprintable;
// - a parsed file's rounds point at its samples in order, every sample has a one-letter state
//   and a stack without control bytes;
// - written back by the writer and read again, rounds and samples come back the same, and a
//   set's processes (pid, and a name and title without ';' or control bytes) too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/raw_samples.h"

namespace raw = hearth::raw_samples;

namespace {

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "raw_samples_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool same(const raw::Round& a, const raw::Round& b) {
  return a.time_ns == b.time_ns && a.copied == b.copied && a.reused == b.reused &&
         a.stopped == b.stopped && a.stall_ns == b.stall_ns && a.after_exec == b.after_exec;
}

bool same(const raw::Sample& a, const raw::Sample& b) {
  return a.time_ns == b.time_ns && a.tid == b.tid && a.state == b.state && a.stack == b.stack;
}

// The file as the writer writes it: header, then each round with its samples.
std::string rewritten(const raw::RawFile& f) {
  std::string out;
  if (f.processes.empty()) {
    raw::append_header(&out, f.pid, f.name);
  } else {
    raw::append_set_header(&out, f.processes);
  }
  size_t next = 0;
  for (size_t r = 0; r <= f.rounds.size(); ++r) {
    size_t end = r < f.rounds.size() ? f.round_first_sample[r] : f.samples.size();
    for (; next < end; ++next) raw::append_sample(&out, f.samples[next]);
    if (r < f.rounds.size()) raw::append_round(&out, f.rounds[r]);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "in/stacks.raw.txt";
  hearth::Result<raw::RawFile> f = raw::parse_raw_samples(text, path);
  if (!f) {
    const std::string& m = f.error().message;
    if (!m.starts_with(path + ":")) die("error does not name the file", m);
    if (m.find('\n') != std::string::npos) die("error is not one line", m);
    for (char c : m) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f) die("error quotes an unprintable byte", m);
    }
    return 0;
  }
  if (f->round_first_sample.size() != f->rounds.size()) die("rounds and their starts differ");
  for (size_t r = 0; r < f->rounds.size(); ++r) {
    if (f->round_first_sample[r] > f->samples.size() ||
        (r > 0 && f->round_first_sample[r] < f->round_first_sample[r - 1])) {
      die("a round starts outside its samples");
    }
  }
  for (const raw::Sample& s : f->samples) {
    if (s.stack.empty()) die("an empty stack accepted");
    for (char c : s.stack) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        die("a control byte accepted", s.stack);
    }
  }
  std::string again = rewritten(*f);
  hearth::Result<raw::RawFile> g = raw::parse_raw_samples(again, path);
  if (!g) die("the writer's output does not read back", g.error().message);
  if (g->rounds.size() != f->rounds.size() || g->samples.size() != f->samples.size() ||
      g->round_first_sample != f->round_first_sample ||
      (f->processes.empty() && g->pid != f->pid)) {
    die("the round trip changed the file's shape", again);
  }
  if (g->processes.size() != f->processes.size())
    die("the round trip changed the processes", again);
  auto plain = [](const std::string& s) {
    for (char c : s) {
      if (c == ';' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    }
    return true;
  };
  for (size_t i = 0; i < f->processes.size(); ++i) {
    const raw::Process &a = f->processes[i], &b = g->processes[i];
    if (a.pid != b.pid || (plain(a.title) && a.title != b.title) ||
        (plain(a.name) && a.name != b.name) || !plain(b.title)) {
      die("the round trip changed a process", again);
    }
  }
  for (size_t i = 0; i < f->rounds.size(); ++i) {
    if (!same(f->rounds[i], g->rounds[i])) die("the round trip changed a round", again);
  }
  for (size_t i = 0; i < f->samples.size(); ++i) {
    if (!same(f->samples[i], g->samples[i])) die("the round trip changed a sample", again);
  }
  return 0;
}
