#include "bin/hearth/cmd_diff.h"

#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

#include "common/atomic_file.h"
#include "common/result.h"
#include "render/cairo/cairo_writer.h"
#include "render/diff/diff_model.h"
#include "render/diff/diff_picture.h"
#include "render/diff/diff_report.h"
#include "render/profile/folded_reader.h"
#include "render/svg/svg_writer.h"

namespace hearth::cli {
namespace {

enum class Out { kNone, kSvg, kPng, kPdf, kMarkdown, kJson, kUnknown };

// The picture formats are cli_common's; this verb also writes Markdown and JSON.
OutFormat format_of_picture(Out o) {
  return o == Out::kPng ? OutFormat::kPng : o == Out::kPdf ? OutFormat::kPdf : OutFormat::kSvg;
}

Out diff_format_of(const std::string& path) {
  auto ends = [&](std::string_view ext) {
    return path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (path.empty()) return Out::kNone;
  if (ends(".svg")) return Out::kSvg;
  if (ends(".png")) return Out::kPng;
  if (ends(".pdf")) return Out::kPdf;
  if (ends(".md")) return Out::kMarkdown;
  if (ends(".json")) return Out::kJson;
  return Out::kUnknown;
}

std::optional<double> parse_pp(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string base_name(const std::string& path) {
  if (path == "-") return "stdin";
  return std::filesystem::path(path).filename().string();
}

// Nodes the merged tree of INPUTS may need: one per 64 bytes of input (broad profiles of
// server code need one per ~170), at most 16M (the tree grows past that as it goes). Only
// address space until used: the point is that the node array is never copied while it grows.
size_t node_estimate(const std::vector<std::string>& inputs) {
  constexpr uintmax_t kBytesPerNode = 64;
  constexpr uintmax_t kMaxNodes = uintmax_t{1} << 24;
  uintmax_t bytes = 0;
  for (const std::string& path : inputs) {
    std::error_code ec;
    uintmax_t size = path == "-" ? 0 : std::filesystem::file_size(path, ec);
    if (!ec) bytes += size;
  }
  return static_cast<size_t>(std::min(bytes / kBytesPerNode, kMaxNodes));
}

// Reads one profile into its column of MERGED (BASE: IS_BASE); on failure prints one line and
// returns false.
bool read_profile(profile::FrameTree& merged, const std::string& path, bool is_base) {
  profile::FoldedReader reader(merged, diff::merged_read_options(is_base));
  if (auto r = reader.read_file(path); !r) {
    std::fprintf(stderr, "hearth diff: %s\n", r.error().message.c_str());
    return false;
  }
  const profile::ReadStats& rs = reader.stats();
  if (!report_reading("diff", rs)) return false;
  if (!diff::has_samples(merged, is_base)) {
    std::fprintf(stderr,
                 "hearth diff: %s %s has no stack counts (%llu stack lines) — expected lines "
                 "like `main;work;leaf 12`\n",
                 is_base ? "BASE" : "NEW", path.c_str(), static_cast<unsigned long long>(rs.lines));
    return false;
  }
  return true;
}

Result<void> write_summary(const diff::DiffModel& m, const diff::ReportOptions& ro,
                           const std::string& path) {
  std::string text = diff_format_of(path) == Out::kJson ? diff::summary_json(m, ro)
                                                        : diff::summary_markdown(m, ro);
  return write_file_atomically(path, text);
}

}  // namespace

std::vector<std::string> validate_diff(const DiffArgs& a) {
  std::vector<std::string> problems;
  if (a.inputs.size() != 2) {
    problems.push_back("expected two profiles, BASE.folded NEW.folded (got " +
                       std::to_string(a.inputs.size()) + ")");
  } else if (a.inputs[0] == "-" && a.inputs[1] == "-") {
    problems.push_back("standard input ('-') can be read only once");
  }
  Out o = diff_format_of(a.output);
  if (o == Out::kUnknown) {
    problems.push_back("-o " + a.output +
                       ": the output must end in .svg, .png, .pdf, .md or .json");
  }
  Out s = diff_format_of(a.summary);
  if (s != Out::kNone && s != Out::kMarkdown && s != Out::kJson) {
    problems.push_back("--summary " + a.summary + ": the summary must end in .md or .json");
  }
  if (!a.fail_above.empty() && !parse_pp(a.fail_above)) {
    problems.push_back("--fail-above " + a.fail_above +
                       ": expected percentage points, a number like 0.5");
  }
  if (!(a.min_samples >= 0)) problems.push_back("--min-samples must not be negative");
  if (!(a.per_sample >= 1 && a.per_sample <= 1e12))
    problems.push_back("--per-sample must be between 1 and 1e12");
  if (a.count_name.empty() || a.count_name.find_first_of("\n\r") != std::string::npos)
    problems.push_back("--countname must be a word like bytes");
  if (!(a.width >= 50 && a.width <= 1e6))
    problems.push_back("--width must be between 50 and 1000000");
  if (!(a.scale > 0 && a.scale <= 8)) problems.push_back("--scale must be above 0 and at most 8");
  return problems;
}

int run_diff(const DiffArgs& a) {
  std::vector<std::string> problems = validate_diff(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth diff: %s\n", p.c_str());
    return 2;
  }
  std::vector<std::string> outputs;
  for (const std::string* o : {&a.output, &a.summary, &a.folded_out}) {
    if (!o->empty()) outputs.push_back(*o);
  }
  if (!outputs_are_new("diff", a.inputs, outputs)) return 2;
  // Both profiles go straight into one tree (BASE's counts in its base column): no second copy
  // of either, and no merge pass.
  profile::FrameTree merged = diff::empty_merged_tree();
  merged.reserve(node_estimate(a.inputs));
  if (!read_profile(merged, a.inputs[0], true)) return 2;
  if (!read_profile(merged, a.inputs[1], false)) return 2;
  merged.finalize();

  diff::DiffOptions opts;
  opts.normalize = !a.no_normalize;
  opts.min_samples = a.min_samples;
  opts.per_sample = a.per_sample;
  opts.count_name = a.count_name;
  diff::DiffModel m = diff::build_diff_merged(std::move(merged), opts);

  diff::ReportOptions ro;
  ro.base_name = base_name(a.inputs[0]);
  ro.new_name = base_name(a.inputs[1]);
  if (!a.fail_above.empty()) ro.fail_above = parse_pp(a.fail_above);

  int status = 0;
  auto failed = [&](const Result<void>& r) {
    if (r) return false;
    std::fprintf(stderr, "hearth diff: %s\n", r.error().message.c_str());
    status = 2;
    return true;
  };
  // The picture is laid out and written by a second thread while this one writes the
  // summaries (both only read M); what they say is printed after, in the order one thread
  // would print it.
  Out o = diff_format_of(a.output);
  const bool picture = o == Out::kSvg || o == Out::kPng || o == Out::kPdf;
  Result<void> picture_written;
  diff::PictureStats ps;
  std::exception_ptr picture_failed;
  auto paint = [&] {
    try {
      diff::PictureOptions po;
      po.base_widths = a.base_widths;
      po.base_name = ro.base_name;
      po.new_name = ro.new_name;
      po.title = a.title;
      po.width = a.width;
      po.max_frames = a.max_frames;
      scene::Scene s = diff::layout_diff(m, po, &ps);
      picture_written = write_picture(s, a.output, format_of_picture(o), a.scale);
    } catch (...) {
      picture_failed = std::current_exception();
    }
  };
  std::thread painter;
  if (picture) {
    try {
      painter = std::thread(paint);
    } catch (const std::system_error&) {
      paint();  // no thread to be had: one does both
    }
  }
  Result<void> output_summary, summary, folded;
  if (o == Out::kMarkdown || o == Out::kJson) output_summary = write_summary(m, ro, a.output);
  if (!a.summary.empty()) summary = write_summary(m, ro, a.summary);
  if (!a.folded_out.empty()) folded = write_file_atomically(a.folded_out, diff::diff_folded(m));
  std::string text = diff::summary_text(m, ro);
  if (painter.joinable()) painter.join();
  if (picture_failed) std::rethrow_exception(picture_failed);

  if (picture && !failed(picture_written)) {
    if (ps.flame.narrow + ps.flame.deep > 0) {  // said only when something was left out
      std::fprintf(stderr, "hearth diff: %s: %s\n", a.output.c_str(),
                   frames_text(ps.flame, a.max_frames).c_str());
    }
  }
  failed(output_summary);
  failed(summary);
  failed(folded);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (status != 0) return status;
  if (ro.fail_above && !diff::regressions(m, *ro.fail_above).empty()) return 1;
  return 0;
}

}  // namespace hearth::cli
