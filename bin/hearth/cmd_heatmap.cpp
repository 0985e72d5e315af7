#include "bin/hearth/cmd_heatmap.h"

#include "bin/hearth/cmd_moment.h"
#include "bin/hearth/figures.h"
#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"
#include "bin/hearth/seconds.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "common/atomic_file.h"
#include "common/file_io.h"
#include "common/unique_fd.h"
#include "formats/timed_samples.h"
#include "render/profile/perf_script_timed.h"
#include "render/profile/process_names.h"
#include "render/time/heat_grid.h"
#include "render/time/heat_page.h"
#include "render/time/heat_picture.h"

namespace hearth::cli {
namespace {

namespace fs = std::filesystem;

enum class HeatOut { kHtml, kPicture, kFolded, kUnknown };

HeatOut heat_out(const std::string& path) {
  auto ends = [&](const char* ext) { return path.ends_with(ext); };
  if (path == "-" || ends(".folded") || ends(".txt")) return HeatOut::kFolded;
  if (ends(".html") || ends(".htm")) return HeatOut::kHtml;
  if (ends(".svg") || ends(".png") || ends(".pdf")) return HeatOut::kPicture;
  return HeatOut::kUnknown;
}

std::optional<heat::StateClass> parse_state(const std::string& s, bool* ok) {
  *ok = true;
  if (s == "R") return heat::StateClass::kRunning;
  if (s == "D") return heat::StateClass::kBlocked;
  if (s == "S") return heat::StateClass::kSleeping;
  if (s == "other") return heat::StateClass::kOther;
  *ok = s == "all";
  return std::nullopt;
}

// The timed samples of PATH: hearth's (or its raw samples), or perf script's text, told from the
// content. What perf script's reading skipped is said on stderr, as `hearth flame` says it.
// SHOWN: how messages name it (PATH, or "<stdin>").
Result<timed_samples::Samples> read_heat_samples(const std::string& path,
                                                 const std::string& shown) {
  if (!profile::file_looks_like_perf_script(path)) {
    auto samples = timed_samples::read(path);
    if (!samples && shown != path) {  // say <stdin>, not the memory file's path
      std::string m = samples.error().message;
      for (size_t at = m.find(path); at != std::string::npos; at = m.find(path, at + shown.size()))
        m.replace(at, path.size(), shown);
      return fail(m);
    }
    return samples;
  }
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  ASSIGN_OR_RETURN(profile::PerfTimed perf, profile::perf_script_timed(text, shown));
  report_perf_script("heatmap", perf.stats);
  if (perf.ignored_lines > 0) {
    std::fprintf(stderr,
                 "hearth heatmap: %s: skipped %s lines that are no part of perf script's text "
                 "(the first: line %s)\n",
                 shown.c_str(), thousands(perf.ignored_lines).c_str(),
                 thousands(perf.first_ignored_line).c_str());
  }
  if (perf.untimed_samples > 0) {
    std::fprintf(stderr,
                 "hearth heatmap: %s: skipped %s samples without a time (the first: line %s)\n",
                 shown.c_str(), thousands(perf.untimed_samples).c_str(),
                 thousands(perf.first_untimed_line).c_str());
  }
  return std::move(perf.samples);
}

}  // namespace

namespace {

// Standard input, read to its end into a memory file (memfd).
Result<UniqueFd> stdin_in_memory() {
  UniqueFd fd(::memfd_create("hearth-stdin", MFD_CLOEXEC));
  if (fd.get() < 0) {
    const int e = errno;
    return fail_errno("cannot hold standard input", e);
  }
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      return fail_errno("cannot read standard input", e);
    }
    if (n == 0) break;
    if (write_all(fd.get(), buffer.data(), static_cast<size_t>(n)) != 0) {
      const int e = errno;
      return fail_errno("cannot hold standard input", e);
    }
  }
  return fd;
}

}  // namespace

std::string samples_path(const std::string& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  fs::path timed = fs::path(input) / "stacks.samples.txt";
  if (fs::exists(timed, ec)) return timed.string();
  return (fs::path(input) / "stacks.raw.txt").string();
}

std::vector<std::string> validate_heatmap(const HeatmapArgs& a) {
  std::vector<std::string> problems;
  if (a.input.empty()) problems.push_back("no input: give a samples file or a report directory");
  const bool moment = !a.moment.empty();
  if (moment && !parse_moment_time(a.moment)) {
    problems.push_back("--moment " + a.moment +
                       ": expected seconds since time 0 (12.5) or a wall time "
                       "(2026-01-01T12:00:01.5, local; Z or +HH:MM for another zone)");
  }
  if (a.output.empty()) {
    problems.push_back("no output: give -o OUT.html (or .svg, .png, .pdf, .folded)");
  } else if (moment) {
    if (!moment_output_ok(a.output))
      problems.push_back("-o " + a.output + ": with --moment, the output must end in .txt, .svg, "
                         ".png or .pdf (- for the text on standard output)");
  } else if (heat_out(a.output) == HeatOut::kUnknown) {
    problems.push_back("-o " + a.output +
                       ": the output must end in .html, .svg, .png, .pdf or .folded (- for folded "
                       "stacks on standard output)");
  }
  if (!a.bucket.empty() && heat::parse_duration(a.bucket) == 0) {
    problems.push_back("--bucket " + a.bucket + ": expected a duration like 20ms, 1s or 500us");
  }
  if (a.rows > 100000) problems.push_back("--rows must be at most 100000");
  bool ok;
  parse_state(a.state, &ok);
  if (!ok && !a.state.empty()) problems.push_back("--state " + a.state + ": use all, R, D, S or other");
  filter_pattern("--only-threads", a.only_threads, &problems);
  const bool range = a.from >= 0 || a.to >= 0;
  if (range && moment) problems.push_back("--from and --to do not apply to --moment");
  if (range && !moment && heat_out(a.output) != HeatOut::kFolded)
    problems.push_back("--from and --to apply to folded output (-o OUT.folded or -o -)");
  if (a.from >= 0 && a.to >= 0 && !(a.to > a.from))
    problems.push_back("--to must be later than --from");
  if (!(a.width >= 300 && a.width <= 100000)) problems.push_back("--width must be 300..100000");
  if (!(a.scale > 0 && a.scale <= 8)) problems.push_back("--scale must be above 0 and at most 8");
  return problems;
}

int run_heatmap(const HeatmapArgs& a) {
  std::vector<std::string> problems = validate_heatmap(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth heatmap: %s\n", p.c_str());
    return 2;
  }
  if (a.output == "-" && a.moment.empty() && isatty(STDOUT_FILENO)) {
    std::fprintf(stderr, "hearth heatmap: not writing folded stacks to a terminal: give -o FILE\n");
    return 2;
  }
  // Standard input is read whole into a file of memory (nothing on disk, gone at exit) that the
  // readers open by path, as they do a file.
  UniqueFd piped;
  std::string path = samples_path(a.input);
  if (a.input == "-") {
    if (isatty(STDIN_FILENO)) {
      std::fprintf(stderr, "hearth heatmap: not reading samples from a terminal: pipe them in "
                           "(perf script | hearth heatmap - -o OUT.html), or give a file\n");
      return 2;
    }
    auto fd = stdin_in_memory();
    if (!fd) {
      std::fprintf(stderr, "hearth heatmap: %s\n", fd.error().message.c_str());
      return 1;
    }
    piped = std::move(*fd);
    path = "/proc/self/fd/" + std::to_string(piped.get());
  } else if (!outputs_are_new("heatmap", {path}, {a.output})) {
    return 2;
  }
  const std::string shown = piped.get() >= 0 ? "<stdin>" : path;
  auto read = read_heat_samples(path, shown);
  if (!read) {
    std::fprintf(stderr, "hearth heatmap: %s\n", read.error().message.c_str());
    return 2;
  }
  timed_samples::Samples& samples = *read;
  if (shown != path) {  // a damage says where: <stdin>, not the memory file's path
    for (size_t at = samples.damage.find(path); at != std::string::npos;
         at = samples.damage.find(path, at + shown.size()))
      samples.damage.replace(at, path.size(), shown);
  }
  if (samples.rounds.empty()) {
    std::fprintf(stderr, "hearth heatmap: %s: no samples%s%s\n", shown.c_str(),
                 samples.damage.empty() ? "" : " before the damage: ", samples.damage.c_str());
    return 2;
  }
  if (!samples.damage.empty()) {
    // As `hearth flame` treats skipped lines: said once, the rest drawn, exit status 0.
    std::fprintf(stderr, "hearth heatmap: %s (drawing the %s samples before it)\n",
                 samples.damage.c_str(), thousands(samples.rounds.size()).c_str());
  }
  std::vector<std::string> unused;
  std::optional<Pattern> only = filter_pattern("--only-threads", a.only_threads, &unused);
  const Pattern* only_ptr = only ? &*only : nullptr;

  if (!a.moment.empty()) {
    profile::title_process_roots(&samples);
    return run_moment(samples, shown, *parse_moment_time(a.moment), only_ptr, a.output, a.width,
                      a.scale);
  }
  const HeatOut kind = heat_out(a.output);
  // Pictures name processes by their titles; folded stacks keep the roots as recorded.
  if (kind != HeatOut::kFolded) profile::title_process_roots(&samples);
  if (kind == HeatOut::kFolded) {
    const uint64_t from = a.from >= 0 ? seconds_to_ns(a.from) : 0;
    const uint64_t to = a.to >= 0 ? seconds_to_ns(a.to) : UINT64_MAX;
    bool ok;
    std::optional<heat::StateClass> state = parse_state(a.state.empty() ? "all" : a.state, &ok);
    std::string folded = heat::range_folded(samples, from, to, only_ptr, state);
    if (folded.empty()) {
      std::fprintf(stderr, "hearth heatmap: no samples in that range%s%s\n",
                   only ? " of the threads --only-threads keeps" : "",
                   state ? " in that --state" : "");
      return 2;
    }
    if (a.output == "-") {
      if (write_all(STDOUT_FILENO, folded.data(), folded.size()) != 0) {
        std::fprintf(stderr, "hearth heatmap: cannot write standard output\n");
        return 1;
      }
      return 0;
    }
    if (auto w = write_file_atomically(a.output, folded); !w) {
      std::fprintf(stderr, "hearth heatmap: %s\n", w.error().message.c_str());
      return 1;
    }
    std::fprintf(stderr, "hearth heatmap: wrote %s\n", a.output.c_str());
    return 0;
  }

  auto layout = heat::choose_layout(samples, a.bucket.empty() ? 0 : heat::parse_duration(a.bucket),
                                    a.rows);
  if (!layout) {
    std::fprintf(stderr, "hearth heatmap: %s\n", layout.error().message.c_str());
    return 2;
  }
  std::string title = a.title;
  if (title.empty()) {
    title = "Heatmap: " + (samples.name.empty() ? fs::path(shown).filename().string() : samples.name);
    if (samples.pid > 0) title += " (pid " + std::to_string(samples.pid) + ")";
  }
  Result<void> written;
  heat::Grid grid;
  if (kind == HeatOut::kHtml) {
    written = write_file_atomically(
        a.output, heat::heatmap_page(samples, *layout, {.title = title, .source = path}));
  } else {
    grid = heat::build_grid(samples, *layout, only_ptr);
    bool ok;
    heat::PictureOptions po;
    po.title = title;
    po.width = a.width;
    po.state = parse_state(a.state.empty() ? "R" : a.state, &ok);
    written = write_picture(heat::layout_heatmap(grid, po), a.output, format_of(a.output), a.scale);
  }
  if (!written) {
    std::fprintf(stderr, "hearth heatmap: %s\n", written.error().message.c_str());
    return 1;
  }
  std::string chosen;
  if (!layout->chosen.empty()) chosen = " (for " + layout->chosen + "; --bucket, --rows to change)";
  std::fprintf(stderr,
               "hearth heatmap: wrote %s: %s samples of %s threads over %s; %u columns of %s, "
               "rows of %s%s\n",
               a.output.c_str(), thousands(samples.rounds.size()).c_str(),
               thousands(samples.threads.size()).c_str(),
               heat::duration_text(heat::span_of(samples).duration_ns).c_str(), layout->columns,
               heat::duration_text(layout->column_ns()).c_str(),
               heat::duration_text(layout->row_ns).c_str(), chosen.c_str());
  return 0;
}

}  // namespace hearth::cli
