#include "render/serve/report_summary.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace hearth::serve {
namespace {

using json = nlohmann::json;

// Text for a page: control characters dropped, at most 200 bytes (a planted report.json may
// hold anything; the page escapes what is left).
std::string field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  std::string out;
  for (const char c : it->get_ref<const std::string&>()) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) continue;
    if (out.size() >= 200) {
      out += "...";
      break;
    }
    out += c;
  }
  return out;
}

std::optional<double> number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// "2.136" -> "2.14 s"; whole seconds without decimals.
std::string seconds_text(double s) {
  char buf[48];
  if (s >= 100 || std::fabs(s - std::round(s)) < 0.005) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  }
  return buf;
}

std::string short_number(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// "2026-11-22T06:51:09Z" (what hearth record writes), fractions of a second allowed.
std::optional<time_t> iso_utc(const std::string& s) {
  std::tm tm{};
  const char* end = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  if (*end == '.') {
    ++end;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (std::string_view(end) != "Z") return std::nullopt;
  return ::timegm(&tm);
}

}  // namespace

ReportSummary summarize_report(std::string_view text) {
  ReportSummary out;
  if (text.size() > kMaxReportJson) return out;
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  out.readable = true;
  out.started = iso_utc(field(j, "started"));
  out.host = field(j, "host");
  if (auto t = j.find("target"); t != j.end() && t->is_object()) {
    const std::string comm = field(*t, "comm");
    const auto pid = number(*t, "pid");
    const std::string pid_text = pid && *pid > 0 ? "pid " + short_number(*pid) : "";
    if (!comm.empty() && !pid_text.empty()) {
      out.target = comm + " (" + pid_text + ")";
    } else {
      out.target = comm.empty() ? pid_text : comm;
    }
    // A process set (--children, several -p, --comm): the first and how many more.
    auto processes = t->find("processes");
    if (processes != t->end() && processes->is_array() && processes->size() > 1) {
      const size_t more = processes->size() - 1;
      out.target +=
          " and " + std::to_string(more) + (more == 1 ? " more process" : " more processes");
    }
  }
  if (auto w = number(j, "window_s"); w && *w >= 0) out.window = seconds_text(*w);
  // What `hearth watch` writes of the rule that started the recording.
  if (auto t = j.find("trigger"); t != j.end() && t->is_object()) {
    out.trigger = field(*t, "rule");
    const std::string rule_text = field(*t, "text");
    if (!rule_text.empty()) out.trigger += (out.trigger.empty() ? "" : ": ") + rule_text;
    if (auto v = number(*t, "value")) out.trigger += " (was " + short_number(*v) + ")";
  }
  auto c = j.find("collectors");
  if (c != j.end() && c->is_object()) {
    auto s = c->find("stacks");
    if (s != c->end() && s->is_object()) {
      const std::string method = field(*s, "method");
      std::string cost = method;
      auto median = number(*s, "stall_median_ms");
      auto max = number(*s, "stall_max_ms");
      if (median || max) {
        cost += std::string(cost.empty() ? "" : ", ") + "stall";
        if (median) cost += " median " + short_number(*median) + " ms";
        if (max) cost += std::string(median ? "," : "") + " max " + short_number(*max) + " ms";
      }
      out.cost = cost;
    }
  }
  return out;
}

}  // namespace hearth::serve
