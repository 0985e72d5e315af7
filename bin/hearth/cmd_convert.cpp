#include "bin/hearth/cmd_convert.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bin/hearth/cmd_heatmap.h"
#include "bin/hearth/input_checks.h"
#include "bin/hearth/profile_output.h"
#include "common/atomic_file.h"
#include "formats/timed_samples.h"
#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/pprof_timed.h"
#include "render/profile/pprof_writer.h"
#include "render/profile/speedscope_timed.h"
#include "render/profile/speedscope_writer.h"
#include "render/timeline/chrome_trace.h"
#include "render/timeline/timeline_inputs.h"

namespace hearth::cli {
namespace {

profile::InputFormat convert_input_format(const std::string& name) {
  if (name == "folded") return profile::InputFormat::kFolded;
  if (name == "gdb") return profile::InputFormat::kGdb;
  if (name == "eu-stack") return profile::InputFormat::kEuStack;
  if (name == "pprof") return profile::InputFormat::kPprof;
  if (name == "speedscope") return profile::InputFormat::kSpeedscope;
  if (name == "perf-script") return profile::InputFormat::kPerfScript;
  return profile::InputFormat::kAuto;
}

// Whether PATH (a file) starts as hearth's timed samples (or raw samples) do.
bool is_timed_samples(const std::string& path) {
  if (path == "-") return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(std::max(timed_samples::kMagic.size(), raw_samples::kRawMagic.size()), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::string_view got(head.data(), static_cast<size_t>(in.gcount()));
  return got.starts_with(timed_samples::kMagic) || got.starts_with(raw_samples::kRawMagic);
}

// A recording's timed samples (DIR's stacks.samples.txt, or the file) kept in time: speedscope's
// Time Order view (speedscope_timed.h), or pprof with each sample's thread, state and time as
// labels (pprof_timed.h). A damaged input is refused: a profile missing what came after the
// damage would pass for the whole recording.
int convert_timed(const ConvertArgs& a, const std::string& path, bool pprof) {
  auto samples = timed_samples::read(path);
  if (!samples) {
    std::fprintf(stderr, "hearth convert: %s\n", samples.error().message.c_str());
    return 2;
  }
  if (!samples->damage.empty() || samples->rounds.empty()) {
    std::fprintf(
        stderr, "hearth convert: %s\n",
        samples->damage.empty() ? (path + ": no samples").c_str() : samples->damage.c_str());
    return 2;
  }
  Result<void> w = pprof ? profile::write_timed_pprof(*samples, a.output)
                         : write_file_atomically(a.output, profile::timed_to_speedscope(*samples));
  if (!w) {
    std::fprintf(stderr, "hearth convert: %s\n", w.error().message.c_str());
    return 1;
  }
  return 0;
}

// A recording's scheduler intervals (and slots, and timed samples) as a Chrome Trace Event JSON
// trace (render/timeline/chrome_trace.h). A damaged input is refused: a trace missing what came
// after the damage would pass for the whole recording.
int convert_to_chrome_trace(const ConvertArgs& a) {
  if (a.format != "auto") {
    std::fprintf(stderr,
                 "hearth convert: --format names a profile's format; a trace is written from a "
                 "recording (its directory, or its sched.intervals.tsv)\n");
    return 2;
  }
  auto sources = timeline::find_sources({a.input});
  if (!sources) {
    std::fprintf(stderr, "hearth convert: %s\n", sources.error().message.c_str());
    return 2;
  }
  if (!outputs_are_new("convert", sources->all(), {a.output})) return 2;
  auto inputs = timeline::read_inputs(*sources);
  if (!inputs) {
    std::fprintf(stderr, "hearth convert: %s\n", inputs.error().message.c_str());
    return 2;
  }
  if (!inputs->damage.empty()) {
    std::fprintf(stderr, "hearth convert: %s\n", inputs->damage.front().c_str());
    return 2;
  }
  const timeline::Model model =
      timeline::build_model(inputs->intervals, inputs->slots ? &*inputs->slots : nullptr,
                            inputs->samples ? &*inputs->samples : nullptr, inputs->names);
  if (model.lanes.empty()) {
    std::fprintf(stderr, "hearth convert: %s: no thread in it\n", sources->intervals.c_str());
    return 2;
  }
  // The files by their names in the recording (no directory: the trace says the same wherever
  // the recording lies).
  std::string source;
  for (const std::string& f : sources->all()) {
    source += (source.empty() ? "" : ", ") + f.substr(f.rfind('/') + 1);
  }
  if (auto w =
          timeline::write_chrome_trace_file(model, inputs->names, {.source = source}, a.output);
      !w) {
    std::fprintf(stderr, "hearth convert: %s\n", w.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int run_convert(const ConvertArgs& a) {
  if (timeline::is_chrome_trace_path(a.output)) return convert_to_chrome_trace(a);
  const bool pprof = is_pprof_path(a.output);
  const bool speedscope = profile::is_speedscope_path(a.output);
  if (!pprof && !speedscope && a.output != "-" && !a.output.ends_with(".folded")) {
    std::fprintf(stderr,
                 "hearth convert: %s: the output must end in .pb.gz (pprof), .speedscope.json "
                 "(speedscope), .trace.json (Chrome trace, from a recording) or .folded (folded "
                 "stacks), or be - (folded stacks on stdout)\n",
                 a.output.c_str());
    return 2;
  }
  if (!(a.hz >= 0 && std::isfinite(a.hz))) {
    std::fprintf(stderr, "hearth convert: --hz must be a rate in samples a second\n");
    return 2;
  }
  if (a.input == "-" && isatty(STDIN_FILENO)) {
    std::fprintf(stderr, "hearth convert: no input: give a profile, or pipe one in\n");
    return 2;
  }
  // A recording's directory stands for its timed samples (stacks.samples.txt, else
  // stacks.raw.txt).
  std::error_code ec;
  const bool dir = a.input != "-" && std::filesystem::is_directory(a.input, ec);
  const std::string input = dir ? samples_path(a.input) : a.input;
  if (!outputs_are_new("convert", {input}, {a.output})) return 2;
  if ((pprof || speedscope) && a.format == "auto" && is_timed_samples(input)) {
    return convert_timed(a, input, pprof);
  }
  if (dir) {
    if (!is_timed_samples(input)) {
      std::fprintf(stderr,
                   "hearth convert: %s: no stacks.samples.txt or stacks.raw.txt in it (a `hearth "
                   "record` report directory has them)\n",
                   a.input.c_str());
    } else {
      std::fprintf(stderr,
                   "hearth convert: %s: a recording converts to OUT.pb.gz, OUT.speedscope.json "
                   "or OUT.trace.json, without --format (its folded stacks: hearth heatmap %s -o "
                   "OUT.folded)\n",
                   a.input.c_str(), a.input.c_str());
    }
    return 2;
  }
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = convert_input_format(a.format)});
  if (auto r = reader.read_file(a.input); !r) {
    std::fprintf(stderr, "hearth convert: %s\n", r.error().message.c_str());
    return 2;
  }
  tree.finalize();
  if (!report_reading("convert", reader.stats())) return 2;
  report_perf_script("convert", reader.perf_script());
  if (!(tree.total().value > 0 ||
        (tree.differential() && tree.base_total(profile::kRoot).value > 0))) {
    std::fprintf(stderr, "hearth convert: no stack counts in %s\n",
                 a.input == "-" ? "standard input" : a.input.c_str());
    return 2;
  }
  Result<void> written =
      pprof        ? profile::write_pprof(tree, a.output, {.period_ns = a.hz > 0 ? 1e9 / a.hz : 0})
      : speedscope ? profile::write_speedscope(tree, a.output)
                   : profile::write_folded(tree, a.output);
  if (!written) {
    std::fprintf(stderr, "hearth convert: %s\n", written.error().message.c_str());
    // A profile pprof cannot hold is the input's fault; a failed write is not.
    return written.error().errnum == 0 ? 2 : 1;
  }
  return 0;
}

}  // namespace hearth::cli
