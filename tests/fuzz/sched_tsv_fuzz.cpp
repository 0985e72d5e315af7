// Fuzz target for the scheduler path: sched.*.tsv reader -> charts layout -> SVG writer (and
// each part through the sched.cpu.tsv reader too).
//
// Input: the first byte picks the mode (bit 0: --group-threads, bits 1-3: the sort key, modulo
// the number of keys, bit 6: the stopped state named after hearth); then an optional '\n'; the
// rest is up to four files separated by lines "%%" (so a states file and a preemptors file can
// meet). Seeds in corpus/sched start with a digit and a newline, so they stay readable.
//
// Invariants checked (abort with context on failure):
// - an error is one line, starts with the file's name, and quotes nothing unprintable;
// - a parsed file has rows of its kind only (cpu rows from the cpu reader only), and the
//   header's window adds up;
// - the layout's rects and texts have finite coordinates, widths and heights >= 0, and lie
//   within the scene's width; the SVG is produced without tripping a CHECK.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "formats/sched_tsv.h"
#include "render/charts/charts.h"
#include "render/svg/svg_writer.h"

namespace {

namespace charts = hearth::charts;
namespace sched_tsv = hearth::sched_tsv;

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "sched_tsv_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_error(const std::string& message, const std::string& path) {
  if (!message.starts_with(path + ":")) die("error does not name the file", message);
  for (char c : message) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) die("error quotes an unprintable byte", message);
  }
}

void check_file(const sched_tsv::SchedFile& f) {
  const sched_tsv::Header& h = f.header;
  if (h.window_end_ns < h.window_start_ns || h.window_ns != h.window_end_ns - h.window_start_ns) {
    die("inconsistent window accepted", f.path);
  }
  size_t kinds = !f.states.empty() + !f.tenancy.empty() + !f.preemptors.empty() +
                 !f.wakeups.empty() + !f.cpu.empty();
  if (kinds > 1) die("rows of several kinds in one file", f.path);
  if (!f.cpu.empty() && f.header.kind != sched_tsv::FileKind::kCpu) die("cpu rows", f.path);
  for (const sched_tsv::TenancyRow& t : f.tenancy) {
    if (t.cpu < 0 || t.cpu >= sched_tsv::kMaxCpus) die("cpu out of range accepted", f.path);
  }
}

bool finite_nonneg(double v) {
  return std::isfinite(v) && v >= 0;
}

void check_scene(const hearth::scene::Scene& s) {
  if (!finite_nonneg(s.width) || !finite_nonneg(s.height)) die("scene size not finite");
  for (const hearth::scene::Text& t : s.texts) {
    if (!std::isfinite(t.x) || !std::isfinite(t.y)) die("text position not finite", t.text);
  }
  for (const hearth::scene::Layer& l : s.layers) {
    for (const hearth::scene::Rect& r : l.rects) {
      if (!finite_nonneg(r.x) || !finite_nonneg(r.y) || !finite_nonneg(r.w) ||
          !finite_nonneg(r.h)) {
        die("rect geometry not finite or negative", r.title);
      }
      if (r.x + r.w > s.width + 0.5) die("rect beyond the right edge", r.title);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (text.starts_with('\n')) text.remove_prefix(1);

  std::vector<sched_tsv::SchedFile> files;
  for (int i = 0; i < 4 && !text.empty(); ++i) {
    size_t sep = text.find("\n%%\n");
    std::string_view part = text.substr(0, sep == std::string_view::npos ? text.size() : sep + 1);
    text = sep == std::string_view::npos ? std::string_view() : text.substr(sep + 4);
    std::string path = "dir/sched." + std::to_string(i) + ".tsv";
    if (hearth::Result<sched_tsv::SchedFile> c = sched_tsv::parse_sched_cpu_tsv(part, path); c) {
      if (c->header.kind != sched_tsv::FileKind::kCpu) die("the cpu reader read another kind");
      check_file(*c);
    } else {
      check_error(c.error().message, path);
    }
    hearth::Result<sched_tsv::SchedFile> f = sched_tsv::parse_sched_tsv(part, path);
    if (!f) {
      check_error(f.error().message, path);
      continue;
    }
    check_file(*f);
    files.push_back(std::move(*f));
  }
  if (files.empty()) return 0;

  charts::ChartOptions options;
  options.group_threads = (mode & 1) != 0;
  options.sort = static_cast<charts::SortKey>(((mode >> 1) & 7) % 5);
  options.stopped_by = (mode & 64) != 0 ? charts::StoppedBy::kHearth : charts::StoppedBy::kTracer;
  options.width = 600;
  options.max_preemptors = 8;
  hearth::scene::Scene scene = charts::layout_charts(files, options, nullptr);
  check_scene(scene);
  std::string svg = hearth::svg::to_svg(scene);
  if (svg.empty()) die("empty SVG");
  return 0;
}
