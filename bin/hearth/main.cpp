// hearth: one binary, verbs as subcommands. main parses and dispatches; verbs live in
// cmd_<verb>.cpp and call the libraries.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "bin/hearth/cmd_chart.h"
#include "bin/hearth/cmd_diff.h"
#include "bin/hearth/cmd_flame.h"
#include "bin/hearth/cmd_mmv.h"
#include "bin/hearth/cmd_record.h"
#include "bin/hearth/cmd_report.h"
#include "bin/hearth/cmd_sched.h"
#include "bin/hearth/cmd_serve.h"
#include "bin/hearth/cmd_stacks.h"
#include "common/version.h"

int main(int argc, char** argv) {
  CLI::App app{"hearth: what are this process's threads doing, and why are they slow?"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and git revision");
  hearth::cli::FlameArgs flame;
  hearth::cli::add_flame_command(app, &flame);
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
  hearth::cli::RecordArgs record;
  hearth::cli::add_record_command(app, &record);
  record.command_line.assign(argv, argv + argc);
  hearth::cli::ReportArgs report;
  hearth::cli::add_report_command(app, &report);
  hearth::cli::ServeArgs serve;
  hearth::cli::add_serve_command(app, &serve);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (version) {
    std::printf("hearth %s (%s)\n", hearth::kVersion, hearth::kGitRevision);
    return 0;
  }
  try {
    if (app.got_subcommand("flame")) return hearth::cli::run_flame(flame);
    if (app.got_subcommand("diff")) return hearth::cli::run_diff(diff);
    if (app.got_subcommand("sched")) return hearth::cli::run_sched(sched);
    if (app.got_subcommand("chart")) return hearth::cli::run_chart(chart);
    if (app.got_subcommand("stacks")) return hearth::cli::run_stacks(stacks);
    if (app.got_subcommand("record")) return hearth::cli::run_record(record);
    if (app.got_subcommand("report")) return hearth::cli::run_report(report);
    if (app.got_subcommand("serve")) return hearth::cli::run_serve(serve);
    if (app.got_subcommand("mmv")) return hearth::cli::run_mmv(mmv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hearth: internal error: %s\n", e.what());
    return 1;
  }
  std::fputs(app.help().c_str(), stderr);
  return 2;
}
