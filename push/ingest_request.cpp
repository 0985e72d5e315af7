#include "push/ingest_request.h"

#include <algorithm>
#include <set>

#include "common/url.h"
#include "common/utf8.h"
#include "render/profile/folded_writer.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_writer.h"

namespace hearth::push {
namespace {

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Whether S is UTF-8 throughout (common/utf8.h's rule).
bool is_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8::sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace

std::string_view format_name(BodyFormat format) {
  return format == BodyFormat::kPprof ? "pprof" : "folded";
}

std::string_view type_name(ProfileType type) {
  return type == ProfileType::kCpu ? "cpu" : "wall";
}

Result<void> check_service(std::string_view service) {
  if (service.empty()) return fail("the service name is empty: give --service NAME");
  if (service.size() > 256) return fail("the service name is longer than 256 bytes");
  for (char c : service) {
    if (!is_letter(c) && !is_digit(c) && c != '_' && c != '-' && c != '.' && c != '/') {
      return fail("service name " + std::string(service) +
                  ": only letters, digits and - _ . / may be used (Pyroscope's rule)");
    }
  }
  for (std::string_view suffix : {".cpu", ".wall", ".itimer", ".alloc_objects", ".alloc_space",
                                  ".inuse_objects", ".inuse_space"}) {
    if (service.ends_with(suffix)) {
      return fail("service name " + std::string(service) + " ends in a profile type (" +
                  std::string(suffix.substr(1)) + "): give the name alone, and --type");
    }
  }
  return {};
}

Result<void> check_label(const Label& label) {
  const std::string& n = label.name;
  if (n.empty()) return fail("a label has no name");
  if (n.size() > 1024) return fail("label name " + n.substr(0, 40) + "…: longer than 1024 bytes");
  if (!is_letter(n[0]) && n[0] != '_') {
    return fail("label name " + n + ": must start with a letter or _");
  }
  for (char c : n) {
    if (!is_letter(c) && !is_digit(c) && c != '_') {
      return fail("label name " + n + ": only letters, digits and _ may be used");
    }
  }
  if (n.starts_with("__")) return fail("label name " + n + ": names starting __ are reserved");
  if (n == "service_name") return fail("label service_name: give it as --service NAME");
  const std::string& v = label.value;
  if (v.empty()) return fail("label " + n + " has an empty value");
  if (v.size() > 2048) return fail("label " + n + ": its value is longer than 2048 bytes");
  if (!is_utf8(v)) return fail("label " + n + ": its value is not UTF-8");
  for (char c : v) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return fail("label " + n + ": its value holds a control character");
    }
    if (c == ',' || c == '{' || c == '}' || c == '=') {
      return fail("label " + n + ": its value holds '" + std::string(1, c) +
                  "', which Pyroscope's name syntax cannot carry");
    }
  }
  if (v.front() == ' ' || v.back() == ' ') {
    return fail("label " + n + ": its value starts or ends with a blank (the server trims it)");
  }
  return {};
}

Result<Label> parse_label(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return fail("label " + std::string(text) + ": give it as NAME=VALUE");
  }
  Label label{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  RETURN_IF_ERROR(check_label(label));
  return label;
}

Result<void> check_labels(const std::vector<Label>& labels) {
  if (labels.size() > kMaxLabels) {
    return fail(std::to_string(labels.size()) + " labels: at most " + std::to_string(kMaxLabels) +
                " (Pyroscope limits the labels of a series)");
  }
  std::set<std::string_view> seen;
  for (const Label& l : labels) {
    RETURN_IF_ERROR(check_label(l));
    if (!seen.insert(l.name).second) return fail("label " + l.name + " is given twice");
  }
  return {};
}

std::string ingest_name(const ProfileMeta& meta, BodyFormat format) {
  std::string name = meta.service;
  if (format == BodyFormat::kFolded) {
    name += '.';
    name += type_name(meta.type);
  }
  std::vector<const Label*> sorted;
  for (const Label& l : meta.labels) sorted.push_back(&l);
  std::sort(sorted.begin(), sorted.end(),
            [](const Label* a, const Label* b) { return a->name < b->name; });
  name += '{';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) name += ',';
    name += sorted[i]->name + "=" + sorted[i]->value;
  }
  name += '}';
  return name;
}

std::string ingest_target(std::string_view path, const ProfileMeta& meta, BodyFormat format) {
  std::string t(path);
  t += "?name=" + percent_encode(ingest_name(meta, format));
  t += "&from=" + std::to_string(meta.from);
  t += "&until=" + std::to_string(meta.until);
  t += "&sampleRate=" + std::to_string(meta.sample_rate);
  t += "&spyName=hearth";
  t += "&format=";
  t += format_name(format);
  return t;
}

Result<Body> encode_body(const profile::FrameTree& tree, const ProfileMeta& meta,
                         BodyFormat format) {
  if (tree.differential()) {
    return fail("a differential profile (BASE NEW counts) cannot be pushed: push each profile");
  }
  if (tree.fractional()) return fail("a profile with fractional counts cannot be pushed");
  if (format == BodyFormat::kFolded) {
    return Body{"text/plain; charset=utf-8", profile::to_folded(tree)};
  }
  profile::PprofWriteOptions options;
  options.period_ns = meta.sample_rate > 0 ? 1e9 / meta.sample_rate : 0;
  options.time_type = std::string(type_name(meta.type));
  options.root_labels = false;
  ASSIGN_OR_RETURN(std::string raw, profile::to_pprof(tree, options));
  ASSIGN_OR_RETURN(std::string packed, profile::gzip(raw));
  return Body{"application/octet-stream", std::move(packed)};
}

}  // namespace hearth::push
