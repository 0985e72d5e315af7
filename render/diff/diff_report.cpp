#include "render/diff/diff_report.h"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "common/check.h"
#include "common/utf8.h"
#include "render/flame/names.h"
#include "render/profile/folded_writer.h"

namespace hearth::diff {
namespace {

using profile::kRoot;
using profile::NodeId;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "+1.23", "-0.40", "0.00": never "-0.00".
std::string pp(double v) {
  std::string s = fmt("%+.2f", v);
  if (s == "-0.00" || s == "+0.00") return "0.00";
  return s;
}
std::string pct(double v) {
  return fmt("%.2f", v) + "%";
}
std::string count(profile::Count v) {
  return flame::with_thousands(v);
}

std::string test_name(const DiffModel& m) {
  std::string name = m.options.normalize
                         ? "two-proportion z-test (pooled), two-sided"
                         : "z-test of two Poisson counts (conditional binomial), two-sided";
  // Weighted counts (bytes): the tests are on the samples they stand for.
  if (m.options.per_sample != 1) {
    name += " on samples of " + fmt("%g", m.options.per_sample) + " " + m.options.count_name;
  }
  return name;
}

std::string function_name(const DiffModel& m, size_t i) {
  return std::string(m.tree.name(m.functions[i].name));
}

// The first frame (the thread) and the last three of a path: enough to recognise it in a
// table; the JSON keeps the whole path.
std::string short_path(const DiffModel& m, NodeId node) {
  std::string full = path_name(m, node);
  std::vector<size_t> semis;
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] == ';') semis.push_back(i);
  }
  if (semis.size() <= 4) return full;
  return full.substr(0, semis[0]) + ";\u2026" + full.substr(semis[semis.size() - 3]);
}

std::string verdict_line(const DiffModel& m, const ReportOptions& o, size_t regressions) {
  if (!o.fail_above) return "";
  (void)m;
  std::string t = fmt("%.2f", *o.fail_above);
  if (regressions == 0) return "no function grew significantly by more than " + t + " pp";
  return std::to_string(regressions) + (regressions == 1 ? " function" : " functions") +
         " grew significantly by more than " + t + " pp";
}

// ---- text ----

void text_function(std::string* out, const DiffModel& m, size_t i, int sign) {
  const Item& it = m.functions[i];
  bool use_self = !(it.inclusive.significant && sign * it.inclusive.pp > 0) ||
                  (it.self.significant && sign * it.self.pp > sign * it.inclusive.pp);
  const Measure& lead = use_self ? it.self : it.inclusive;
  const Measure& other = use_self ? it.inclusive : it.self;
  *out += "  " + pp(lead.pp) + " pp  " + function_name(m, i) + "  (" +
          (use_self ? "self " : "inclusive ") + pct(lead.base_share) + " -> " +
          pct(lead.new_share) + ", " + (use_self ? "inclusive " : "self ") + pp(other.pp) +
          " pp, z " + fmt("%.1f", lead.z) + ")\n";
}

// ---- Markdown ----

std::string md_code(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '`') {
      out += '\'';
    } else if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '`';
  return out;
}

void md_function_table(std::string* out, const DiffModel& m, const std::vector<size_t>& rows,
                       size_t limit) {
  *out +=
      "| function | inclusive BASE | inclusive NEW | Δ inclusive | self BASE | self NEW | "
      "Δ self |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (size_t k = 0; k < rows.size() && k < limit; ++k) {
    const Item& it = m.functions[rows[k]];
    auto mark = [](const Measure& x) { return x.significant ? "**" : ""; };
    *out += "| " + md_code(function_name(m, rows[k])) + " | " + pct(it.inclusive.base_share) +
            " | " + pct(it.inclusive.new_share) + " | " + mark(it.inclusive) + pp(it.inclusive.pp) +
            " pp" + mark(it.inclusive) + " | " + pct(it.self.base_share) + " | " +
            pct(it.self.new_share) + " | " + mark(it.self) + pp(it.self.pp) + " pp" +
            mark(it.self) + " |\n";
  }
  if (rows.size() > limit) {
    *out += "\n" + std::to_string(rows.size() - limit) + " more in the JSON summary.\n";
  }
}

void md_path_table(std::string* out, const DiffModel& m, const std::vector<NodeId>& rows,
                   size_t limit, const char* what) {
  *out += std::string("| path | ") + what + " |\n|---|---:|\n";
  for (size_t k = 0; k < rows.size() && k < limit; ++k) {
    const Measure in = path_item(m, rows[k]).inclusive;
    *out += "| " + md_code(short_path(m, rows[k])) + " | " + pct(in.base_share) + " → " +
            pct(in.new_share) + " (" + pp(in.pp) + " pp) |\n";
  }
  if (rows.size() > limit) {
    *out += "\n" + std::to_string(rows.size() - limit) + " more in the JSON summary.\n";
  }
}

// ---- JSON ----

void json_string(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8::sequence_length(s, i);
    if (n == 0) {
      out->append("\\ufffd");  // not UTF-8: the replacement character, as the SVG shows it
      ++i;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->append(s.substr(i, n));
    }
    i += n;
  }
  out->push_back('"');
}

std::string jnum(double v) {
  std::string s = fmt("%.4f", v);
  if (s == "-0.0000") s = "0.0000";
  return s;
}

void json_measure(std::string* out, const Measure& x) {
  *out += "{\"base\": " + profile::format_count(x.base) +
          ", \"new\": " + profile::format_count(x.next) + ", \"base_pct\": " + jnum(x.base_share) +
          ", \"new_pct\": " + jnum(x.new_share) + ", \"pp\": " + jnum(x.pp) +
          ", \"z\": " + fmt("%.3f", x.z == 0 ? 0.0 : x.z) +
          ", \"significant\": " + (x.significant ? "true" : "false") + "}";
}

void json_path_list(std::string* out, const DiffModel& m, const std::vector<NodeId>& rows,
                    size_t limit) {
  *out += "[";
  for (size_t k = 0; k < rows.size() && k < limit; ++k) {
    const Item it = path_item(m, rows[k]);
    *out += k == 0 ? "\n      " : ",\n      ";
    *out += "{\"path\": ";
    json_string(out, path_name(m, rows[k]));
    *out += ", \"inclusive\": ";
    json_measure(out, it.inclusive);
    *out += ", \"self\": ";
    json_measure(out, it.self);
    *out += "}";
  }
  *out += rows.empty() || limit == 0 ? "]" : "\n    ]";
}

}  // namespace

std::string summary_text(const DiffModel& m, const ReportOptions& o) {
  const std::string& unit = m.options.count_name;
  std::string out = "hearth diff: BASE " + o.base_name + " (" + count(m.base_total) + " " + unit +
                    ") -> NEW " + o.new_name + " (" + count(m.new_total) + " " + unit + "), " +
                    (m.options.normalize ? "shares of each profile's total\n"
                                         : "counts as shares of BASE's total\n");
  out += "  significance: " + test_name(m) + ", family-wise alpha " + fmt("%g", m.options.alpha) +
         " (Bonferroni: |z| > " + fmt("%.2f", m.function_z) + " over " +
         std::to_string(m.function_tests) + " function tests)\n";
  auto list = [&](const char* title, int sign) {
    std::vector<size_t> rows = significant_functions(m, sign);
    out += std::string(title) + ": " + std::to_string(rows.size()) + "\n";
    for (size_t k = 0; k < rows.size() && k < o.rows; ++k) text_function(&out, m, rows[k], sign);
    if (rows.size() > o.rows) out += "  ... " + std::to_string(rows.size() - o.rows) + " more\n";
  };
  std::vector<size_t> reg;
  if (o.fail_above) {
    reg = regressions(m, *o.fail_above);
    out += "regressions (grew significantly by more than " + fmt("%.2f", *o.fail_above) +
           " pp): " + std::to_string(reg.size()) + "\n";
    for (size_t k = 0; k < reg.size() && k < o.rows; ++k) text_function(&out, m, reg[k], 1);
    if (reg.size() > o.rows) out += "  ... " + std::to_string(reg.size() - o.rows) + " more\n";
  } else {
    list("significant increases", 1);
  }
  list("significant decreases", -1);
  auto only = [&](const char* title, bool added) {
    std::vector<NodeId> paths = only_in_one(m, added);
    std::vector<size_t> funcs = functions_only_in_one(m, added);
    out += std::string(title) + ": " + std::to_string(paths.size()) + " path" +
           (paths.size() == 1 ? "" : "s") + ", " + std::to_string(funcs.size()) + " function" +
           (funcs.size() == 1 ? "" : "s");
    if (!paths.empty()) {
      const Measure in = path_item(m, paths[0]).inclusive;
      out += "; widest: " + short_path(m, paths[0]) + " (" +
             pct(added ? in.new_share : in.base_share) + (added ? " of NEW)" : " of BASE)");
    }
    out += "\n";
  };
  only("added (only in NEW)", true);
  only("removed (only in BASE)", false);
  if (o.fail_above) {
    out += std::string(reg.empty() ? "PASS: " : "FAIL: ") + verdict_line(m, o, reg.size()) + "\n";
  }
  return out;
}

std::string summary_markdown(const DiffModel& m, const ReportOptions& o) {
  std::string out = "### hearth diff";
  std::vector<size_t> reg;
  if (o.fail_above) {
    reg = regressions(m, *o.fail_above);
    out +=
        std::string(reg.empty() ? ": PASS" : ": **FAIL**") + " — " + verdict_line(m, o, reg.size());
  }
  const std::string& unit = m.options.count_name;
  out += "\n\nBASE " + md_code(o.base_name) + ": " + count(m.base_total) + " " + unit + " · NEW " +
         md_code(o.new_name) + ": " + count(m.new_total) + " " + unit + " · " +
         (m.options.normalize ? "shares of each profile's total"
                              : "counts as shares of BASE's total") +
         ".\nSignificance: " + test_name(m) + ", family-wise α = " + fmt("%g", m.options.alpha) +
         " (Bonferroni over " + std::to_string(m.function_tests) + " function tests: |z| > " +
         fmt("%.2f", m.function_z) + "). Significant changes are **bold**.\n";
  if (o.fail_above) {
    out += "\n#### Regressions (significant, more than " + fmt("%.2f", *o.fail_above) + " pp)\n\n";
    if (reg.empty()) {
      out += "None.\n";
    } else {
      md_function_table(&out, m, reg, o.rows);
    }
  }
  auto section = [&](const char* title, int sign) {
    std::vector<size_t> rows = significant_functions(m, sign);
    out += std::string("\n#### ") + title + "\n\n";
    if (rows.empty()) {
      out += "None.\n";
    } else {
      md_function_table(&out, m, rows, o.rows);
    }
  };
  section("Functions that grew", 1);
  section("Functions that shrank", -1);
  auto paths = [&](const char* title, std::vector<NodeId> rows) {
    out += std::string("\n#### ") + title + "\n\n";
    if (rows.empty()) {
      out += "None.\n";
    } else {
      md_path_table(&out, m, rows, o.rows, "inclusive, BASE → NEW");
    }
  };
  paths("Stack paths that grew (significant)", significant_paths(m, 1));
  paths("Stack paths that shrank (significant)", significant_paths(m, -1));
  paths("Added stack paths (only in NEW)", only_in_one(m, true));
  paths("Removed stack paths (only in BASE)", only_in_one(m, false));
  return out;
}

std::string summary_json(const DiffModel& m, const ReportOptions& o) {
  std::string out = "{\n  \"format\": \"hearth.diff\",\n  \"version\": 1,\n  \"base\": {\"file\": ";
  json_string(&out, o.base_name);
  out += ", \"samples\": " + profile::format_count(m.base_total) + "},\n  \"new\": {\"file\": ";
  json_string(&out, o.new_name);
  out += ", \"samples\": " + profile::format_count(m.new_total) + "},\n";
  out += std::string("  \"normalized\": ") + (m.options.normalize ? "true" : "false") + ",\n";
  out += "  \"min_samples\": " + profile::format_count(m.options.min_samples) + ",\n";
  if (m.options.per_sample != 1 || m.options.count_name != "samples") {
    // Counts that are not samples (`hearth alloc`'s bytes): what they are, and how many of them
    // the tests took for one sample.
    out += "  \"count_name\": ";
    json_string(&out, m.options.count_name);
    out += ",\n  \"per_sample\": " + fmt("%.17g", m.options.per_sample) + ",\n";
  }
  out +=
      "  \"test\": {\"name\": \"" +
      std::string(m.options.normalize ? "two-proportion-z" : "poisson-z") +
      "\", \"sides\": 2, \"alpha\": " + fmt("%g", m.options.alpha) +
      ", \"correction\": \"bonferroni\", \"function_tests\": " + std::to_string(m.function_tests) +
      ", \"function_z\": " + fmt("%.4f", m.function_z) +
      ", \"path_tests\": " + std::to_string(m.path_tests) +
      ", \"path_z\": " + fmt("%.4f", m.path_z) + "},\n";
  std::vector<size_t> reg;
  if (o.fail_above) reg = regressions(m, *o.fail_above);
  out += "  \"fail_above_pp\": " + (o.fail_above ? jnum(*o.fail_above) : std::string("null")) +
         ",\n  \"result\": \"" +
         (!o.fail_above ? "none"
          : reg.empty() ? "pass"
                        : "fail") +
         "\",\n  \"regressions\": [";
  for (size_t k = 0; k < reg.size(); ++k) {
    out += k == 0 ? "" : ", ";
    json_string(&out, function_name(m, reg[k]));
  }
  out += "],\n  \"functions\": [";
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Item& it = m.functions[i];
    out += i == 0 ? "\n    " : ",\n    ";
    out += "{\"name\": ";
    json_string(&out, function_name(m, i));
    const char* status = it.inclusive.base.value == 0   ? "added"
                         : it.inclusive.next.value == 0 ? "removed"
                                                        : "common";
    out += std::string(", \"status\": \"") + status +
           "\", \"tested\": " + (it.tested ? "true" : "false") + ", \"inclusive\": ";
    json_measure(&out, it.inclusive);
    out += ", \"self\": ";
    json_measure(&out, it.self);
    out += "}";
  }
  out += m.functions.empty() ? "],\n" : "\n  ],\n";
  constexpr size_t kPathRows = 100;
  out += "  \"paths\": {\n    \"count\": " + std::to_string(m.tree.size() - 1) +
         ",\n    \"limit\": " + std::to_string(kPathRows) + ",\n    \"grew\": ";
  json_path_list(&out, m, significant_paths(m, 1), kPathRows);
  out += ",\n    \"shrank\": ";
  json_path_list(&out, m, significant_paths(m, -1), kPathRows);
  out += ",\n    \"added\": ";
  json_path_list(&out, m, only_in_one(m, true), kPathRows);
  out += ",\n    \"removed\": ";
  json_path_list(&out, m, only_in_one(m, false), kPathRows);
  out += "\n  }\n}\n";
  return out;
}

namespace {

// B, a rounded count, as a whole one. B is at most about NEW's total, which fits: the clamp is
// for rounding at the very top.
profile::Count whole_of(double b) {
  if (b >= static_cast<double>(profile::kMaxWholeCount)) {
    return profile::whole_count(profile::kMaxWholeCount);
  }
  return profile::whole_count(static_cast<uint64_t>(b));
}

}  // namespace

std::string diff_folded(const DiffModel& m) {
  bool same_totals = m.base_total.whole == m.new_total.whole &&
                     m.base_total.value == m.new_total.value;  // exact: one tree, one kind
  if (!m.options.normalize || same_totals) return profile::to_folded(m.tree);
  // A copy with BASE's counts scaled to NEW's total; node ids match (parents before children),
  // and so do name ids (interned in order).
  profile::FrameTree scaled(profile::Merge::kAll);
  scaled.add_self(kRoot, {}, {});
  for (size_t name = 0; name < m.tree.name_count(); ++name) {
    HEARTH_CHECK(scaled.intern(m.tree.name(static_cast<profile::NameId>(name))) == name);
  }
  std::vector<NodeId> map(m.tree.size(), kRoot);
  double k = m.new_total.value / m.base_total.value;
  for (size_t i = 1; i < m.tree.size(); ++i) {
    NodeId id = static_cast<NodeId>(i);
    const profile::Node& n = m.tree.node(id);
    map[i] = scaled.child(map[n.parent], n.name);
    double b = std::nearbyint(m.tree.base_self(id).value * k);
    profile::Count base = m.tree.fractional() ? profile::fractional_count(b) : whole_of(b);
    profile::Count self = m.tree.self(id);
    if (self.value != 0 || b != 0) scaled.add_self(map[i], self, base);
  }
  scaled.finalize();
  return profile::to_folded(scaled);
}

}  // namespace hearth::diff
