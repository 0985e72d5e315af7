// hearth: one binary, verbs as subcommands. This file is the command line: every verb's
// options (the only file that compiles CLI11), then the dispatch; each verb's checks and work
// live in cmd_<verb>.cpp and call the libraries.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "bin/hearth/build_info.h"
#include "bin/hearth/completion.h"
#include "bin/hearth/cmd_alloc.h"
#include "bin/hearth/cmd_chart.h"
#include "bin/hearth/cmd_convert.h"
#include "bin/hearth/cmd_diff.h"
#include "bin/hearth/cmd_flame.h"
#include "bin/hearth/cmd_heatmap.h"
#include "bin/hearth/cmd_mmv.h"
#include "bin/hearth/cmd_push.h"
#include "bin/hearth/cmd_record.h"
#include "bin/hearth/cmd_replay.h"
#include "bin/hearth/cmd_report.h"
#include "bin/hearth/cmd_sched.h"
#include "bin/hearth/cmd_serve.h"
#include "bin/hearth/cmd_stacks.h"
#include "bin/hearth/cmd_timeline.h"
#include "bin/hearth/cmd_watch.h"
#include "bin/hearth/sampler_cli.h"

namespace hearth::cli {
namespace {

// When the selection takes in processes: only at the start (sched), or also those that start
// later (stacks' run, record's window).
enum class Growing { kAtTheStart, kDuringTheRun, kDuringTheWindow };

// -p, --children (--inherit), --comm: the process selection stacks, record and sched share.
void add_selection_options(CLI::App* c, SelectionArgs* a, Growing growing) {
  const std::string during = growing == Growing::kDuringTheRun ? "the run" : "the window";
  c->add_option("-p,--pid", a->pids, "Process to sample or record (repeatable)");
  c->add_flag("--children,--inherit", a->children,
              growing == Growing::kAtTheStart
                  ? "Also the child processes of those selected and their descendants, those "
                    "created in the window too (each under its own pid)"
                  : "Also the child processes of those selected and their descendants, those "
                    "started during " +
                        during + " too (each under its own root and pid)");
  c->add_option("--comm", a->comm,
                std::string("Also the processes whose name (comm) or title (command line as ps "
                            "shows it) matches this regular expression (RE2 syntax, searched "
                            "anywhere)") +
                    (growing == Growing::kAtTheStart ? ", at the start"
                                                     : "; new matches join during " + during));
}

void add_push_destination_options(CLI::App* c, PushArgs* a);  // below, with `hearth push`

// --alloc (its help: ALLOC_HELP), --alloc-mean, --alloc-live-max: record's and watch's.
void add_alloc_collector_options(CLI::App* c, AllocCollectorArgs* a, const std::string& alloc_help) {
  c->add_option("--alloc", a->alloc, alloc_help);
  c->add_option("--alloc-mean", a->alloc_mean,
                "With --alloc: one sample per this many bytes allocated, on average")
      ->capture_default_str();
  c->add_option("--alloc-live-max", a->alloc_live_max,
                "With --alloc live: sampled blocks followed at once (more are dropped, counted)")
      ->capture_default_str();
}

void add_chart_command(CLI::App& app, ChartArgs* a) {
  CLI::App* c = app.add_subcommand(
      "chart",
      "Chart a scheduler recording (thread states, CPU tenancy, preemptors) or MMV metric series");
  c->add_option("files", a->inputs,
                "sched.*.tsv files, MMV series (hearth mmv's TSV), or directories of them")
      ->required();
  c->add_option("-o,--output", a->output, "OUT.svg, OUT.png or OUT.pdf");
  c->add_option("--title", a->title, "Title text (default: Scheduler: TARGET)");
  c->add_option("--sort", a->sort,
                "Order of the thread bars: runnable, on_cpu, blocked (share of the thread's "
                "time, largest first), name or tid")
      ->capture_default_str();
  c->add_flag("--group-threads", a->group_threads,
              "Merge pool threads into one bar: worker-1, worker-2 -> worker-*");
  c->add_option("--width", a->width, "Width of the image, px")->capture_default_str();
  c->add_option("--scale", a->scale, "PNG pixel density (2 for HiDPI)")->capture_default_str();
  c->add_option("--metrics", a->metrics,
                "MMV series: chart only metrics whose name matches this regular expression "
                "(RE2 syntax, searched anywhere in the name)");
  c->add_option("--max-panels", a->max_panels, "MMV series: at most this many metric panels")
      ->capture_default_str();
}

void add_diff_command(CLI::App& app, DiffArgs* a) {
  CLI::App* c = app.add_subcommand(
      "diff", "Compare two folded profiles: what grew, by how much, and is it more than noise");
  c->add_option("files", a->inputs, "BASE.folded NEW.folded (or pprof profiles: .pb.gz)");
  c->add_option("-o,--output", a->output,
                "Differential flamegraph: OUT.svg, OUT.png or OUT.pdf (.md or .json: a summary)");
  c->add_option("--summary", a->summary, "Write a summary: FILE.md (Markdown) or FILE.json");
  c->add_option("--fail-above", a->fail_above,
                "Exit 1 when a function's share grew significantly by more than PCT points");
  c->add_option("--min-samples", a->min_samples,
                "Ignore functions and paths with fewer samples than this in both profiles")
      ->capture_default_str();
  c->add_flag("--no-normalize", a->no_normalize,
              "Compare raw counts (as shares of BASE's total) instead of each profile's shares");
  c->add_option("--per-sample", a->per_sample,
                "Counts that stand for one sample in the tests and --min-samples: for hearth "
                "alloc's bytes profiles, its --mean (524288 by default); 1 for sample counts")
      ->capture_default_str();
  c->add_option("--countname", a->count_name,
                "What the counts are, in the summaries and the picture (bytes, calls)")
      ->capture_default_str();
  c->add_option("--folded-out", a->folded_out,
                "Write `stack BASE NEW` lines (difffolded.pl's format) to FILE");
  c->add_flag("--base-widths", a->base_widths, "Frame widths from BASE instead of NEW");
  c->add_option("--title", a->title, "Title text (default: Differential Flame Graph)");
  c->add_option("--width", a->width, "Width of the image, px")->capture_default_str();
  c->add_option("--max-frames", a->max_frames, "Draw at most this many frames (0: no limit)")
      ->capture_default_str();
  c->add_option("--scale", a->scale, "PNG pixel density (2 for HiDPI)")->capture_default_str();
}

void add_heatmap_command(CLI::App& app, HeatmapArgs* a) {
  CLI::App* c = app.add_subcommand(
      "heatmap",
      "When did it happen: a subsecond-offset heatmap of timed stack samples; select a time "
      "range for its flamegraph, click for the moment view");
  c->add_option("input", a->input,
                "Timed samples (stacks.samples.txt), raw samples (stacks --raw), perf script's "
                "text (with its time field), or a report directory; - reads standard input "
                "(`perf script | hearth heatmap - -o OUT.html`)")
      ->required();
  c->add_option("-o,--output", a->output,
                "OUT.html (interactive), OUT.svg, OUT.png or OUT.pdf (static), OUT.folded or - "
                "(the folded stacks of --from..--to)");
  c->add_option("--bucket", a->bucket,
                "A row's span (20ms, 1s, ...; default: 20 ms, or the sampling interval, or 1 s "
                "in 1 min columns for recordings over 15 min)");
  c->add_option("--rows", a->rows, "Rows per column (default: a column is 1 s, or 1 min)");
  c->add_option("--only-threads", a->only_threads,
                "Only threads whose root frame matches this regular expression (RE2, searched)");
  c->add_option("--state", a->state,
                "Count only samples in this state: all, R, D, S or other (default: R for the "
                "pictures' colour, all for folded output)");
  c->add_option("--moment", a->moment,
                "The moment view of the sample nearest this time (seconds since time 0, or a wall "
                "time 2026-01-01T12:00:01.5) instead: -o OUT.txt, .svg, .png, .pdf or -");
  c->add_option("--from", a->from, "Folded output: from this many seconds after time 0");
  c->add_option("--to", a->to, "Folded output: up to (not including) this many seconds");
  c->add_option("--title", a->title, "Title (default: Heatmap: NAME (pid PID))");
  c->add_option("--width", a->width, "Width of a static picture, px")->capture_default_str();
  c->add_option("--scale", a->scale, "PNG pixel density (2 for HiDPI)")->capture_default_str();
}

void add_flame_command(CLI::App& app, FlameArgs* a) {
  CLI::App* c = app.add_subcommand("flame", "Render folded stacks as an interactive flamegraph");
  c->add_option("files", a->inputs,
                "Folded stack files, gdb's or eu-stack's backtraces, perf script, pprof or "
                "speedscope profiles ('-' or none: standard input)");
  c->add_option("-o,--output", a->output,
                "OUT.svg, OUT.png or OUT.pdf (default: SVG on stdout); OUT.pb.gz: the stacks as "
                "a pprof profile; OUT.speedscope.json: as a speedscope profile");
  c->add_option("--title", a->title, "Title text (default: Flame Graph)");
  c->add_option("--subtitle", a->subtitle, "Second-level title");
  c->add_option("--width", a->width, "Width of the image, px")->capture_default_str();
  c->add_option("--height", a->height, "Height of each frame, px")->capture_default_str();
  c->add_option("--minwidth", a->minwidth, "Omit frames narrower than this: px, or N% of the total")
      ->capture_default_str();
  c->add_option("--fonttype", a->fonttype, "Font family")->capture_default_str();
  c->add_option("--fontsize", a->fontsize, "Font size, px")->capture_default_str();
  c->add_option("--fontwidth", a->fontwidth, "Average glyph width relative to the font size")
      ->capture_default_str();
  c->add_option("--countname", a->countname, "What the counts are")->capture_default_str();
  c->add_option("--nametype", a->nametype, "What the names are")->capture_default_str();
  c->add_option("--colors,--color", a->colors,
                "Palette: hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, "
                "yellow, purple, orange")
      ->capture_default_str();
  c->add_option("--bgcolors", a->bgcolors, "Background: yellow, blue, green, grey or #rrggbb");
  c->add_flag("--hash", a->hash, "Colour by name prefix: similar names, similar colours");
  c->add_flag("--reverse", a->reverse, "Reverse stacks (leaf first), merging from the leaves");
  c->add_option("--format", a->format,
                "Input: folded stacks, gdb's `thread apply all bt` or eu-stack's text (one "
                "snapshot or many), a pprof profile (.pb.gz or raw), speedscope JSON, or `perf "
                "script`'s text; auto tells them apart by content")
      ->check(CLI::IsMember(
          {"auto", "folded", "gdb", "eu-stack", "pprof", "speedscope", "perf-script"}))
      ->capture_default_str();
  c->add_flag("--inverted", a->inverted, "Icicle graph (root at the top)");
  c->add_flag("--flamechart", a->flamechart, "Flame chart: input order is time, no merging");
  c->add_flag("--negate", a->negate, "Differential input: swap the red and blue hues");
  c->add_option("--factor", a->factor, "Multiply counts by this in tooltips")
      ->capture_default_str();
  c->add_option("--total", a->total, "Width of the whole graph in counts (default: their sum)");
  c->add_option("--notes", a->notes, "Text kept in the SVG as a comment");
  c->add_option("--only-threads", a->only_threads,
                "Keep only threads whose root frame matches REGEX (RE2 syntax)");
  c->add_option("--grep", a->grep,
                "Keep only stacks in which some frame matches REGEX (RE2 syntax)");
  c->add_flag("--group-threads", a->group_threads,
              "Merge pool threads: worker-1, worker-2 -> worker-*");
  c->add_option("--max-frames", a->max_frames, "Draw at most this many frames (0: no limit)")
      ->capture_default_str();
  c->add_option("--scale", a->scale, "PNG pixel density (2 for HiDPI)")->capture_default_str();
}

void add_mmv_command(CLI::App& app, MmvArgs* a) {
  CLI::App* c = app.add_subcommand(
      "mmv", "Snapshot PCP MMV metric files (no pmcd): a table, or a time series as TSV");
  c->add_option("files", a->inputs,
                "MMV files, names in $PCP_TMP_DIR/mmv, or directories (default: "
                "$PCP_TMP_DIR/mmv)");
  c->add_option("-i,--interval", a->interval, "Seconds between snapshots")->capture_default_str();
  c->add_option("-n,--count", a->count, "Snapshots to take (0: until -d or interrupted)");
  c->add_option("-d,--duration", a->duration, "Seconds to record (0: no limit)");
  c->add_option("-o,--output", a->output, "Output file for the TSV (- : standard output)");
  c->add_flag("--reproducible", a->reproducible,
              "Times relative to the first snapshot; no paths, pids or generations");
  c->add_flag("--help-text", a->help_text, "The -n 1 table shows each metric's short help");
}

void add_record_command(CLI::App& app, RecordArgs* a) {
  CLI::App* c = app.add_subcommand(
      "record",
      "Record a process (stacks, scheduler, MMV metrics) over one window into a report directory");
  add_selection_options(c, a, Growing::kDuringTheWindow);
  c->add_flag("--title", a->title,
              "Add each process's title at the sample as a frame under its root");
  c->add_option("-d,--duration", a->duration, "Seconds to record")->capture_default_str();
  c->add_option("-o,--output", a->output, "Report directory (created if missing)")->required();
  c->add_option("-F,--frequency", a->frequency, "Stack samples per second")->capture_default_str();
  c->add_option("--method", a->method, kMethodHelp)->capture_default_str();
  c->add_option("--symbol-cache", a->symbol_cache, kSymbolCacheHelp);
  c->add_option("--mmv", a->mmv,
                "MMV files, names or directories to read (default: the files whose writer is a "
                "selected process)");
  c->add_option("--mmv-interval", a->mmv_interval, "Seconds between MMV snapshots")
      ->capture_default_str();
  c->add_flag("--no-stacks", a->no_stacks, "Don't sample stacks");
  c->add_flag("--no-sched", a->no_sched, "Don't trace the scheduler");
  c->add_flag("--no-mmv", a->no_mmv, "Don't read MMV metrics");
  c->add_flag("--wakeups", a->wakeups, "Also record every wakeup: wakeup latency, migrations");
  c->add_option("--intervals", a->intervals,
                "Seconds at the window's end whose scheduler intervals are all kept (before: "
                "per-thread time per 1 s slot)")
      ->capture_default_str();
  c->add_option("--baseline", a->baseline, "An earlier report directory: adds the diff view");
  add_alloc_collector_options(
      c, a,
      "Also profile the target's allocations (hearth alloc's uprobes, over the window): "
      "bytes, count (calls) or live (bytes not freed at the end), comma-separated. Off "
      "by default: while on, every allocator call of the target costs ~0.5 us more (live: "
      "~2 us, free probed too)");
  c->add_option("--push", a->push.url,
                "Then send the stacks recorded to Grafana Pyroscope at URL (as hearth push does; "
                "--service defaults to the first -p process's name): exit 3 if spooled, 4 if "
                "refused");
  add_push_destination_options(c, &a->push);
}

void add_watch_command(CLI::App& app, WatchArgs* a) {
  CLI::App* c = app.add_subcommand(
      "watch",
      "Watch processes at a low rate; when a rule holds, write a report of the minutes before "
      "and the seconds after (a flight recorder)");
  add_selection_options(c, a, Growing::kDuringTheRun);
  c->add_option("-o,--output", a->output,
                "Directory the reports are written in (created if missing)");
  c->add_option("--rule", a->rules,
                "A rule, e.g. 'cpu > 90% over 10s' (repeatable; README, \"Rules\")");
  c->add_option("--rules", a->rule_files, "A file of rules, one per line (re-read on SIGHUP)");
  c->add_flag("--check", a->check,
              "Check the rules, print them as the watcher reads them, and exit");
  c->add_option("--ring", a->ring, "Seconds of samples kept before a trigger")
      ->capture_default_str();
  c->add_option("--rate", a->rate, "Stack samples per second while watching")
      ->capture_default_str();
  c->add_option("-F,--frequency", a->frequency, "Stack samples per second while recording")
      ->capture_default_str();
  c->add_option("--after", a->after, "Seconds recorded after a trigger")->capture_default_str();
  c->add_option("--cooldown", a->cooldown, "Seconds after a report before the next")
      ->capture_default_str();
  c->add_option("--per-hour", a->per_hour, "Most reports in any hour")->capture_default_str();
  c->add_option("--max-reports", a->max_reports, "End after this many reports (0: never)")
      ->capture_default_str();
  c->add_option("--disk-budget", a->disk_budget_mb,
                "MB the reports in the directory may take; the oldest are removed first")
      ->capture_default_str();
  c->add_option("--memory-budget", a->memory_budget_mb,
                "MB of resident memory hearth keeps within: above it the ring is shortened, "
                "oldest samples first (said once, and published)")
      ->capture_default_str();
  c->add_option("--method", a->method,
                "bpf (no thread stopped but those on a CPU) or ptrace (every thread stopped at "
                "every sample: only when asked)")
      ->capture_default_str();
  c->add_option("--symbol-cache", a->symbol_cache, kSymbolCacheHelp);
  c->add_option("--mmv", a->mmv,
                "MMV files, names or directories for mmv: rules and reports (default: the files "
                "whose writer is a watched process)");
  c->add_option("--pcp-host", a->pcp_host, "pmcd serving pcp: rules")->capture_default_str();
  c->add_flag("--no-sched", a->no_sched, "Reports record no scheduler trace");
  c->add_option("--publish", a->publish,
                "Name of the MMV file the live figures go to (PCP's pmdammv serves them as "
                "mmv.NAME.watch.*)")
      ->capture_default_str();
  c->add_flag("--no-publish", a->no_publish, "Publish no live figures");
  add_alloc_collector_options(
      c, a,
      "Also profile the target's allocations over each report's window after the trigger "
      "(hearth record --alloc's uprobes, attached only then): bytes, count or live, "
      "comma-separated; one -p process");
  c->add_option("--push", a->push.url,
                "Send each report's stacks to Grafana Pyroscope at URL once it is written, as "
                "hearth push does, in a process of its own while watching goes on (--service "
                "defaults to the first -p process's name); each push's end is said");
  add_push_destination_options(c, &a->push);
}

void add_report_command(CLI::App& app, ReportArgs* a) {
  CLI::App* c = app.add_subcommand(
      "report", "Render a report directory again (pictures and index.html) from its files");
  c->add_option("dir", a->dir, "Report directory (from hearth record, or copied off a host)")
      ->required();
  c->add_option("--baseline", a->baseline, "An earlier report directory: adds the diff view");
  c->add_option("--width", a->width, "Width of the pictures, px")->capture_default_str();
}

void add_replay_command(CLI::App& app, ReplayArgs* a) {
  CLI::App* c = app.add_subcommand(
      "replay",
      "Replay recorded stack samples in the live view, with each thread's state (keys: space "
      "pause, arrows step, [ ] speed, l loop, g go to, q quit)");
  c->add_option("input", a->input,
                "Report directory (its stacks.samples.txt, else stacks.raw.txt), or a timed or "
                "raw samples file")
      ->required();
  c->add_option("-o,--output", a->output,
                "Print the view once to this file ('-': stdout) instead of replaying (the "
                "default when stdout is not a terminal)");
  c->add_option("--speed", a->speed, "Playback speed, 1/64 to 64")->capture_default_str();
  c->add_option("--from", a->from, "Replay from this many seconds after the recording's start");
  c->add_option("--to", a->to, "Replay up to this many seconds after the recording's start");
  c->add_option("--at", a->at,
                "Printed: the view at this second (default: the end); on a terminal: start "
                "here, paused");
  c->add_flag("--loop", a->loop, "Loop the range replayed");
  c->add_option("--window", a->window,
                "Count the stacks over the samples of the last SECS (0: every sample since --from, "
                "as `hearth stacks` counts since its start)")
      ->capture_default_str();
}

void add_timeline_command(CLI::App& app, TimelineArgs* a) {
  CLI::App* c = app.add_subcommand(
      "timeline",
      "One timeline for every thread: a lane each, coloured by scheduler state, with each stack "
      "sample as a tick (zoom to microseconds; hover: state, duration, CPU, preemptor or waker)");
  c->add_option("inputs", a->inputs,
                "A report directory, or files: sched.intervals.tsv (required), sched.slots.tsv, "
                "sched.states.tsv and sched.preemptors.tsv (names), stacks.samples.txt (ticks)")
      ->required();
  c->add_option("-o,--output", a->output,
                "OUT.html (interactive), OUT.svg, OUT.png or OUT.pdf (static)");
  c->add_flag("--group-threads", a->group_threads,
              "Thread pools (worker-1..N) as one lane in pictures; grouped (each one opens) on "
              "the page");
  c->add_option("--only-threads", a->only_threads,
                "Only threads whose name matches this regular expression (RE2, searched)");
  c->add_option("--from", a->from,
                "From this many seconds after the timeline's start (pictures: the range drawn; "
                "page: the range shown first)");
  c->add_option("--to", a->to, "Up to this many seconds after the timeline's start");
  c->add_option("--title", a->title, "Title (default: Timeline: NAME (pid PID))");
  c->add_option("--heatmap", a->heatmap,
                "The page a sample's moment link opens (default: heat.html when it is beside "
                "the output)");
  c->add_option("--width", a->width, "Width of a static picture, px")->capture_default_str();
  c->add_option("--scale", a->scale, "PNG pixel density (2 for HiDPI)")->capture_default_str();
}

void add_sched_command(CLI::App& app, SchedArgs* a) {
  CLI::App* c = app.add_subcommand(
      "sched", "Record scheduler states, CPU tenancy and preemptors of processes (tracefs)");
  add_selection_options(c, a, Growing::kAtTheStart);
  c->add_flag("-a,--all", a->all, "Record every task on the system");
  c->add_option("--cpu", a->cpu, "With -a: only this CPU (what ran on it; sched.cpu.tsv)");
  c->add_option("-d,--duration", a->duration, "Seconds to record")->capture_default_str();
  c->add_option("-o,--output", a->output, "Output directory (created if missing)");
  c->add_flag(
      "--wakeups", a->wakeups,
      "Also record every wakeup (sched_waking): wakeup latency and migrations (sched.wakeups.tsv)");
  c->add_flag("--ftrace", a->ftrace,
              "Also write every event as ftrace text (sched.ftrace.txt, opens in Perfetto; "
              "~170 bytes per event)");
  c->add_option("--intervals", a->intervals,
                "Seconds at the window's end whose intervals are all kept (sched.intervals.tsv; "
                "before: per-thread time per 1 s slot, sched.slots.tsv)")
      ->capture_default_str();
}

void add_serve_command(CLI::App& app, ServeArgs* a) {
  CLI::App* c = app.add_subcommand(
      "serve", "Serve a report directory, or a directory of reports, over HTTP (read-only)");
  c->add_option("dir", a->dir, "Report directory, or a directory of them")->required();
  c->add_option("--bind", a->bind, "Address to listen on")->capture_default_str();
  c->add_option("--port", a->port, "Port (0: any free port)")->capture_default_str();
  c->add_option("--head-timeout", a->head_timeout_s,
                "Seconds a client has to send a request's line and headers, whole (slow clients "
                "are cut)")
      ->capture_default_str();
  c->add_option("--token", a->token,
                "Require this token on every request (Bearer header, or ?token= once in the "
                "browser: traded for a cookie and a redirect to the address without it)");
  c->add_flag("-q,--quiet", a->quiet, "Don't log requests on stderr");
}

void add_stacks_command(CLI::App& app, StacksArgs* a) {
  CLI::App* c = app.add_subcommand("stacks", "Sample the stacks of every thread of processes");
  add_selection_options(c, a, Growing::kDuringTheRun);
  c->add_flag("--title", a->title,
              "Add each process's title at the sample (PostgreSQL's `postgres: bench bench "
              "[local] UPDATE waiting`) as a frame under its root");
  c->add_option("-n,--count", a->count, "Number of samples (default: 1, or as many as -d allows)");
  c->add_option("-d,--duration", a->duration, "Sample for this many seconds");
  c->add_option("-F,--frequency", a->frequency, "Samples per second")->capture_default_str();
  c->add_option("-o,--output", a->output,
                "Folded stacks file, or OUT.pb.gz: pprof, OUT.speedscope.json: speedscope ('-': "
                "stdout; default: live view on a terminal, else stdout)");
  c->add_option("--format", a->format,
                "folded, or gdb: each sample as gdb's `thread apply all bt` prints it, for "
                "poor-man's-profiler scripts")
      ->capture_default_str();
  c->add_option("--raw", a->raw, "Also write every sample as a line: time, tid, state, stack");
  c->add_option("--samples", a->samples,
                "Also write the timed samples (every thread's state and stack at every sample, "
                "compact): what hearth heatmap and hearth replay read");
  c->add_option("--threads", a->threads,
                "split: a root per thread, named by its role (an unnamed thread: comm:ENTRY); "
                "merge: a root per role; raw: a root per thread, named by its comm only")
      ->capture_default_str();
  c->add_flag("--state", a->state, "Add each thread's scheduler state (R, S, D...) under it");
  c->add_option("--method", a->method, kMethodHelp)->capture_default_str();
  c->add_flag("--one-at-a-time", a->one_at_a_time,
              "ptrace: stop one thread at a time: least stall per thread, no consistency across "
              "threads (the default when sampling repeatedly)");
  c->add_flag("--all-stop", a->all_stop,
              "ptrace: stop every thread together for each sample: a consistent snapshot, every "
              "thread waits for the slowest (the default for one sample, -n 1)");
  c->add_option("--max-frames", a->max_frames, "Deepest user stack")->capture_default_str();
  c->add_flag("--no-kernel", a->no_kernel, "Don't add kernel stacks of sleeping threads");
  c->add_option("--stop-timeout", a->stop_timeout_ms,
                "Skip threads that don't stop within this many ms (uninterruptible sleep)")
      ->capture_default_str();
  c->add_option("--stack-bytes", a->stack_bytes, "First stack copy per thread (grows as needed)")
      ->capture_default_str();
  c->add_flag("-v,--verbose", a->verbose,
              "Say where hearth's own time went: attaching (step by step), the rounds, "
              "symbolization (with the symbol cache's hits and misses), writing");
  c->add_option("--symbol-cache", a->symbol_cache, kSymbolCacheHelp);
}

void add_convert_command(CLI::App& app, ConvertArgs* a) {
  CLI::App* c = app.add_subcommand(
      "convert",
      "Convert a profile: folded stacks, gdb's or eu-stack's backtraces, perf script, pprof or "
      "speedscope to pprof, speedscope or folded; or a recording to a Chrome trace (Perfetto)");
  c->add_option("input", a->input,
                "A profile hearth flame reads: folded stacks, gdb's or eu-stack's text, perf "
                "script, pprof, speedscope ('-': stdin); a recording's directory or its "
                "stacks.samples.txt (to OUT.pb.gz or OUT.speedscope.json: samples kept in time, "
                "pprof labels thread, thread_id, state, time); for OUT.trace.json a recording's "
                "directory or its sched.intervals.tsv")
      ->required();
  c->add_option("output", a->output,
                "OUT.pb.gz (pprof, gzipped), OUT.speedscope.json, OUT.trace.json (Chrome Trace "
                "Event JSON: Perfetto UI, chrome://tracing), OUT.folded, or - (folded stacks on "
                "stdout)")
      ->required();
  c->add_option("--format", a->format, "Input format (auto: told apart by content)")
      ->check(CLI::IsMember(
          {"auto", "folded", "gdb", "eu-stack", "pprof", "speedscope", "perf-script"}))
      ->capture_default_str();
  c->add_option("--hz", a->hz,
                "The sampling rate, when known: pprof output also counts wall/nanoseconds "
                "(count / rate)");
}

void add_alloc_command(CLI::App& app, AllocArgs* a) {
  CLI::App* c = app.add_subcommand(
      "alloc",
      "Sample a process's allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, "
      "memalign, valloc, pvalloc; a JVM's Java objects) by stack, weighted by bytes or calls; "
      "--live: the sampled blocks still allocated at the end");
  c->add_option("-p,--pid", a->pid, "The process")->required();
  c->add_option("-d,--duration", a->duration,
                "Seconds to sample (the process's exit or Ctrl-C end the window sooner)")
      ->capture_default_str();
  c->add_option("-o,--output", a->output,
                "OUT.svg (.png, .pdf): a flamegraph in the mem palette; any other name: folded "
                "stacks weighted by bytes (calls with --count)")
      ->required();
  c->add_option("--mean", a->mean,
                "Mean bytes a thread allocates between two samples (random thresholds, as "
                "tcmalloc samples): smaller samples more, at more cost")
      ->capture_default_str();
  c->add_flag("--live", a->live,
              "Only the sampled blocks still allocated at the end of the window (free and "
              "realloc followed; costs a uretprobe per allocation and a uprobe per free): where "
              "a leak or a growing heap comes from");
  c->add_flag("--count", a->count,
              "Weigh stacks by calls (with --live: by blocks), estimated from the samples, "
              "rather than by bytes");
  c->add_option("--live-max", a->live_max,
                "Sampled blocks --live follows at once; more are dropped, and counted")
      ->capture_default_str();
  c->add_option("--max-frames", a->max_frames, "Deepest user stack")->capture_default_str();
  c->add_flag("--merge-threads", a->merge_threads, "A root per thread name, not per thread");
  c->add_option("--symbol-cache", a->symbol_cache, kSymbolCacheHelp);
  c->add_flag("--jvm", a->jvm,
              "The process is a HotSpot JVM: sample its Java objects by class and stack "
              "(object__alloc; the JVM needs -XX:+ExtendedDTraceProbes). The default for a process "
              "that maps libjvm.so");
  c->add_flag("--native", a->native,
              "Sample the allocator calls (malloc...) even of a JVM, not its Java objects");
  c->add_option("--class", a->class_regex,
                "JVM: only objects whose class matches this regular expression (java.lang.String, "
                "byte[])");
  c->add_option("--exclude-class", a->exclude_class,
                "JVM: not the objects whose class matches this regular expression");
}

// Where and how `hearth push` and `hearth record --push` send: the profile's name and labels,
// the tenant and credentials, TLS, timeouts, retries and the spool.
void add_push_destination_options(CLI::App* c, PushArgs* a) {
  c->add_option("--service", a->service,
                "Pyroscope: the application's name (service_name): letters, digits, - _ . /");
  c->add_option("--type", a->type,
                "Pyroscope: wall (every thread's stacks, whatever its state: what hearth samples) "
                "or cpu (on-CPU stacks only)")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  c->add_option("--label", a->labels,
                "Pyroscope: NAME=VALUE, a label of the series (repeatable; host=HOSTNAME is added "
                "unless given); names: a letter or _, then letters, digits, _")
      ->allow_extra_args(false);
  c->add_option("--tenant", a->tenant, "Pyroscope: tenant id, sent as X-Scope-OrgID");
  c->add_option("--bearer-token-file", a->bearer_token_file,
                "Pyroscope: a file holding the bearer token (Authorization: Bearer)");
  c->add_option("--basic-auth-file", a->basic_auth_file,
                "Pyroscope: a file holding USER:PASSWORD (Authorization: Basic)");
  c->add_option("--ca-file", a->ca_file,
                "Pyroscope over https: trust the CAs of this PEM file (default: the system's)");
  c->add_flag("--insecure", a->insecure,
              "Pyroscope over https: do not check the server's certificate (anyone on the path "
              "can read and change what is sent)");
  c->add_option("--timeout", a->timeout,
                "Pyroscope: seconds to connect, and for each read and write")
      ->capture_default_str();
  c->add_option("--retries", a->retries,
                "Pyroscope: retries after a 5xx, 408 or 429 answer, a timeout or a failed "
                "connection")
      ->capture_default_str();
  c->add_option("--backoff", a->backoff,
                "Pyroscope: seconds before the first retry; doubled each time (at most 30 s), "
                "with jitter")
      ->capture_default_str();
  c->add_option("--spool", a->spool,
                "Where undelivered profiles wait (default: $XDG_STATE_HOME/hearth/push-spool, else "
                "~/.local/state/hearth/push-spool)");
  c->add_option("--spool-max-mb", a->spool_max_mb,
                "MB the spool may hold; the oldest profiles are dropped first (said)")
      ->capture_default_str();
  c->add_flag("--no-spool", a->no_spool, "Spool nothing: an undelivered profile is an error");
  c->add_option("--send-as", a->send_as, "Pyroscope: the body, folded stacks or pprof (gzipped)")
      ->check(CLI::IsMember({"folded", "pprof"}))
      ->capture_default_str();
}

void add_push_command(CLI::App& app, PushArgs* a) {
  CLI::App* c = app.add_subcommand(
      "push",
      "Send profiles to Grafana Pyroscope (its HTTP ingest API); what cannot be delivered is "
      "spooled on disk and delivered by a later push. Exit: 0 delivered, 3 spooled (the server "
      "could not be reached), 4 refused by the server (a 4xx answer), 2 bad usage or input, 1 a "
      "profile neither delivered nor spooled");
  c->add_option("url", a->url, "The server: http[s]://HOST[:PORT][/PREFIX] (POST PREFIX/ingest)")
      ->required();
  c->add_option("profiles", a->inputs,
                "Profiles hearth flame reads: folded stacks, pprof, speedscope, perf script, gdb's "
                "text ('-': stdin), or report directories of hearth record (their stacks.folded, "
                "window, rate and target); each is one push");
  c->add_flag("--flush", a->flush, "Deliver the profiles spooled for this server (no new one)");
  add_push_destination_options(c, a);
  c->add_option("--format", a->format, "Input format (auto: told apart by content)")
      ->check(CLI::IsMember({"auto", "folded", "gdb", "pprof", "speedscope", "perf-script"}))
      ->capture_default_str();
  c->add_option("--hz", a->hz,
                "Samples per second each thread was sampled at, a whole number (default: a "
                "report directory's -F, else 10, hearth's default -F)");
  c->add_option("--from", a->from,
                "When the profile began, Unix seconds (default: a report directory's start, else "
                "--until - -d)");
  c->add_option("--until", a->until,
                "When it ended, Unix seconds (default: a report directory's end, else the file's "
                "modification time; stdin: now)");
  c->add_option("-d,--duration", a->duration, "Seconds the profile spans, for the default --from")
      ->capture_default_str();
}

}  // namespace
}  // namespace hearth::cli

namespace {

// The bash completion script of APP's verbs and options (bin/hearth/completion.h).
std::string completion_script(CLI::App& app) {
  std::vector<hearth::cli::CompletionVerb> verbs;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    hearth::cli::CompletionVerb verb{sub->get_name(), {}};
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->nonpositional()) continue;
      hearth::cli::CompletionOption option;
      for (const std::string& n : o->get_snames()) option.names.push_back("-" + n);
      for (const std::string& n : o->get_lnames()) option.names.push_back("--" + n);
      option.takes_value = o->get_items_expected_min() > 0;
      if (option.takes_value) option.choices = hearth::cli::completion_choices(o->get_type_name());
      verb.options.push_back(std::move(option));
    }
    verbs.push_back(std::move(verb));
  }
  return hearth::cli::bash_completion(verbs, {"--help", "--version"});
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hearth: what are this process's threads doing, and why are they slow?"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version,
               "Print the version and git revision, how hearth is linked, its capture methods "
               "and what it draws with");
  hearth::cli::FlameArgs flame;
  hearth::cli::add_flame_command(app, &flame);
  hearth::cli::ConvertArgs convert;
  hearth::cli::add_convert_command(app, &convert);
  hearth::cli::HeatmapArgs heatmap;
  hearth::cli::add_heatmap_command(app, &heatmap);
  hearth::cli::DiffArgs diff;
  hearth::cli::add_diff_command(app, &diff);
  hearth::cli::SchedArgs sched;
  hearth::cli::add_sched_command(app, &sched);
  hearth::cli::ChartArgs chart;
  hearth::cli::add_chart_command(app, &chart);
  hearth::cli::MmvArgs mmv;
  hearth::cli::add_mmv_command(app, &mmv);
  hearth::cli::StacksArgs stacks;
  hearth::cli::add_stacks_command(app, &stacks);
  hearth::cli::AllocArgs alloc;
  hearth::cli::add_alloc_command(app, &alloc);
  hearth::cli::RecordArgs record;
  hearth::cli::add_record_command(app, &record);
  record.command_line.assign(argv, argv + argc);
  hearth::cli::ReportArgs report;
  hearth::cli::add_report_command(app, &report);
  hearth::cli::ReplayArgs replay;
  hearth::cli::add_replay_command(app, &replay);
  hearth::cli::TimelineArgs timeline;
  hearth::cli::add_timeline_command(app, &timeline);
  hearth::cli::WatchArgs watch;
  hearth::cli::add_watch_command(app, &watch);
  watch.command_line.assign(argv, argv + argc);
  hearth::cli::ServeArgs serve;
  hearth::cli::add_serve_command(app, &serve);
  hearth::cli::PushArgs push;
  hearth::cli::add_push_command(app, &push);
  std::string completion_shell;
  CLI::App* completion = app.add_subcommand(
      "completion", "Print a shell completion script made from these options: "
                    "source <(hearth completion bash)");
  completion->add_option("shell", completion_shell, "The shell (bash; zsh through bashcompinit)")
      ->required()
      ->check(CLI::IsMember({"bash"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (version) {
    std::fputs(hearth::cli::version_text().c_str(), stdout);
    return 0;
  }
  if (completion->parsed()) {
    std::fputs(completion_script(app).c_str(), stdout);
    return 0;
  }
  try {
    if (app.got_subcommand("flame")) return hearth::cli::run_flame(flame);
    if (app.got_subcommand("diff")) return hearth::cli::run_diff(diff);
    if (app.got_subcommand("convert")) return hearth::cli::run_convert(convert);
    if (app.got_subcommand("heatmap")) return hearth::cli::run_heatmap(heatmap);
    if (app.got_subcommand("sched")) return hearth::cli::run_sched(sched);
    if (app.got_subcommand("chart")) return hearth::cli::run_chart(chart);
    if (app.got_subcommand("stacks")) return hearth::cli::run_stacks(stacks);
    if (app.got_subcommand("alloc")) return hearth::cli::run_alloc(alloc);
    if (app.got_subcommand("record")) return hearth::cli::run_record(record);
    if (app.got_subcommand("report")) return hearth::cli::run_report(report);
    if (app.got_subcommand("replay")) return hearth::cli::run_replay(replay);
    if (app.got_subcommand("timeline")) return hearth::cli::run_timeline(timeline);
    if (app.got_subcommand("serve")) return hearth::cli::run_serve(serve);
    if (app.got_subcommand("mmv")) return hearth::cli::run_mmv(mmv);
    if (app.got_subcommand("watch")) return hearth::cli::run_watch(watch);
    if (app.got_subcommand("push")) return hearth::cli::run_push(push);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hearth: internal error: %s\n", e.what());
    return 1;
  }
  std::fputs(app.help().c_str(), stderr);
  return 2;
}
