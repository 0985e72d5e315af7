#include "bin/hearth/cmd_push.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "bin/hearth/input_checks.h"
#include "common/file_io.h"
#include "common/result.h"
#include "push/endpoint.h"
#include "push/ingest_request.h"
#include "push/pusher.h"
#include "push/spool.h"
#include "render/profile/folded_reader.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_reader.h"

namespace hearth::cli {
namespace {

profile::InputFormat push_input_format(const std::string& name) {
  if (name == "folded") return profile::InputFormat::kFolded;
  if (name == "gdb") return profile::InputFormat::kGdb;
  if (name == "pprof") return profile::InputFormat::kPprof;
  if (name == "speedscope") return profile::InputFormat::kSpeedscope;
  if (name == "perf-script") return profile::InputFormat::kPerfScript;
  return profile::InputFormat::kAuto;
}

std::string push_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// When INPUT was last written (Unix seconds): the end of the recording that wrote it. Standard
// input: now.
int64_t written_at(const std::string& input) {
  struct stat st {};
  if (input != "-" && ::stat(input.c_str(), &st) == 0) return st.st_mtime;
  return std::time(nullptr);
}

// What a report directory (hearth record's) says of its stacks: the window and the rate.
struct ReportWindow {
  std::string stacks;  // DIR/stacks.folded
  int64_t from = -1;   // Unix seconds: report.json's started
  int64_t until = -1;  // started + window_s
  int hz = 0;          // collectors.stacks.frequency_hz
  std::string comm;    // target.comm
};

// "2026-11-22T07:24:31Z" (or with a fraction) as Unix seconds; -1 when it is not that.
int64_t utc_seconds(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      !text.ends_with('Z')) {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(::timegm(&tm));
}

// DIR's report.json and stacks.folded, or why not.
Result<ReportWindow> report_window(const std::string& dir) {
  ReportWindow w;
  w.stacks = dir + "/stacks.folded";
  if (::access(w.stacks.c_str(), R_OK) != 0) {
    return fail(dir +
                ": a directory without stacks.folded (push a report directory of hearth "
                "record, or a profile)");
  }
  auto text = read_file(dir + "/report.json");
  if (!text) return w;  // the stacks alone: the defaults apply
  nlohmann::json meta = nlohmann::json::parse(*text, nullptr, false);
  if (!meta.is_object()) return fail(dir + "/report.json: not JSON");
  if (meta.contains("started") && meta["started"].is_string()) {
    w.from = utc_seconds(meta["started"].get<std::string>());
  }
  if (w.from >= 0 && meta.contains("window_s") && meta["window_s"].is_number()) {
    w.until = w.from + std::max<int64_t>(0, std::llround(meta["window_s"].get<double>()));
  }
  const nlohmann::json& stacks =
      meta.value("collectors", nlohmann::json::object()).value("stacks", nlohmann::json::object());
  if (stacks.is_object() && stacks.contains("frequency_hz") && stacks["frequency_hz"].is_number()) {
    w.hz = static_cast<int>(std::lround(stacks["frequency_hz"].get<double>()));
  }
  const nlohmann::json target = meta.value("target", nlohmann::json::object());
  if (target.is_object() && target.contains("comm") && target["comm"].is_string()) {
    w.comm = target["comm"].get<std::string>();
  }
  return w;
}

struct Prepared {
  std::string what;  // "profile x.folded"
  push::Request request;
};

// The labels of A (checked; host added unless given), or the problems with them.
std::vector<push::Label> push_labels(const PushArgs& a, std::vector<std::string>* problems) {
  std::vector<push::Label> labels;
  bool host_given = false;
  for (const std::string& text : a.labels) {
    auto label = push::parse_label(text);
    if (!label) {
      problems->push_back(label.error().message);
      continue;
    }
    host_given |= label->name == "host";
    labels.push_back(std::move(*label));
  }
  if (!host_given) {
    if (std::string host = push_host_name(); !host.empty()) {
      push::Label label{"host", host};
      if (push::check_label(label)) labels.push_back(std::move(label));
    }
  }
  if (auto r = push::check_labels(labels); !r && problems->empty()) {
    problems->push_back(r.error().message);
  }
  return labels;
}

// The send options of A: credentials read from their files (problems said in *PROBLEMS).
push::SendOptions push_send_options(const PushArgs& a, std::vector<std::string>* problems) {
  push::SendOptions options;
  options.tenant = a.tenant;
  if (!a.bearer_token_file.empty() && !a.basic_auth_file.empty()) {
    problems->push_back("--bearer-token-file and --basic-auth-file: give one");
  } else if (!a.bearer_token_file.empty()) {
    auto c = push::read_bearer_token_file(a.bearer_token_file);
    if (c)
      options.credentials = *c;
    else
      problems->push_back(c.error().message);
  } else if (!a.basic_auth_file.empty()) {
    auto c = push::read_basic_auth_file(a.basic_auth_file);
    if (c)
      options.credentials = *c;
    else
      problems->push_back(c.error().message);
  }
  options.ca_file = a.ca_file;
  options.insecure = a.insecure;
  options.timeout_s = a.timeout;
  options.retries = a.retries;
  options.backoff_s = a.backoff;
  return options;
}

}  // namespace

std::string service_of_process(int pid) {
  std::string comm;
  if (auto text = read_file("/proc/" + std::to_string(pid) + "/comm")) comm = *text;
  return service_of_name(comm);
}

std::string service_of_name(std::string comm) {
  while (!comm.empty() && (comm.back() == '\n' || comm.back() == ' ')) comm.pop_back();
  for (char& c : comm) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '/';
    if (!ok) c = '_';  // '.' too: "x.cpu" would read as a profile type
  }
  return comm;
}

std::vector<std::string> validate_push(const PushArgs& a, bool profiles) {
  std::vector<std::string> problems;
  auto endpoint = push::parse_endpoint(a.url);
  if (!endpoint) problems.push_back(endpoint.error().message);
  if (!profiles && !a.flush) {
    problems.push_back("no profile: give one or more, or --flush to deliver the spooled ones");
  }
  if (profiles && a.service.empty()) {
    problems.push_back("no --service NAME: the application the profiles are of");
  } else if (profiles) {
    if (auto r = push::check_service(a.service); !r) problems.push_back(r.error().message);
  }
  if (a.hz < 0 || a.hz > 1000000) {
    problems.push_back("--hz: a whole number of samples a second, 1 or more");
  }
  push_labels(a, &problems);
  if (!a.tenant.empty()) {
    if (auto r = push::check_tenant(a.tenant); !r) problems.push_back(r.error().message);
  }
  push_send_options(a, &problems);
  if (endpoint && !endpoint->https && (a.insecure || !a.ca_file.empty())) {
    problems.push_back("--insecure and --ca-file are for https:// servers");
  }
  if (!a.ca_file.empty() && ::access(a.ca_file.c_str(), R_OK) != 0) {
    problems.push_back("--ca-file " + a.ca_file + ": cannot be read");
  }
  if (!(a.timeout > 0 && a.timeout <= 3600)) problems.push_back("--timeout: seconds, above 0");
  if (a.retries < 0 || a.retries > 100) problems.push_back("--retries: 0 to 100");
  if (!(a.backoff >= 0 && a.backoff <= 3600)) problems.push_back("--backoff: seconds, 0 or more");
  if (!(a.spool_max_mb > 0 && a.spool_max_mb <= 1 << 20)) {
    problems.push_back("--spool-max-mb: megabytes, above 0");
  }
  if (!(a.duration > 0 && std::isfinite(a.duration))) problems.push_back("-d: seconds, above 0");
  if (a.no_spool && !a.spool.empty()) problems.push_back("--no-spool and --spool: give one");
  int stdin_inputs = 0;
  for (const std::string& in : a.inputs) stdin_inputs += in == "-";
  if (stdin_inputs > 1) problems.push_back("standard input (-) is given more than once");
  if (stdin_inputs > 0 && isatty(STDIN_FILENO)) {
    problems.push_back("no input on standard input: give a profile, or pipe one in");
  }
  return problems;
}

int run_push(const PushArgs& args) {
  // Report directories: their stacks, window, rate and target (what is not given).
  PushArgs a = args;
  std::vector<std::optional<ReportWindow>> windows;
  for (std::string& in : a.inputs) {
    std::error_code ec;
    if (in == "-" || !std::filesystem::is_directory(in, ec)) {
      windows.emplace_back();
      continue;
    }
    auto w = report_window(in);
    if (!w) {
      std::fprintf(stderr, "hearth push: %s\n", w.error().message.c_str());
      return kPushBadInput;
    }
    if (a.service.empty() && !w->comm.empty()) a.service = service_of_name(w->comm);
    in = w->stacks;
    windows.push_back(std::move(*w));
  }
  std::vector<std::string> problems = validate_push(a, !a.inputs.empty());
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth push: %s\n", p.c_str());
    return kPushBadInput;
  }
  auto endpoint = push::parse_endpoint(a.url);  // checked above
  push::ProfileMeta meta;
  meta.service = a.service;
  meta.type = a.type == "cpu" ? push::ProfileType::kCpu : push::ProfileType::kWall;
  meta.sample_rate = static_cast<uint32_t>(a.hz > 0 ? a.hz : kDefaultPushHz);
  meta.labels = push_labels(a, &problems);
  push::SendOptions options = push_send_options(a, &problems);
  const push::BodyFormat send_as =
      a.send_as == "pprof" ? push::BodyFormat::kPprof : push::BodyFormat::kFolded;

  // Every profile read and encoded before anything is sent: bad input sends nothing.
  std::vector<Prepared> prepared;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const std::string& in = a.inputs[i];
    const std::optional<ReportWindow>& window = windows[i];
    profile::FrameTree tree;
    profile::FoldedReader reader(tree, {.format = push_input_format(a.format)});
    if (auto r = reader.read_file(in); !r) {
      std::fprintf(stderr, "hearth push: %s\n", r.error().message.c_str());
      return kPushBadInput;
    }
    tree.finalize();
    if (!report_reading("push", reader.stats())) return kPushBadInput;
    report_perf_script("push", reader.perf_script());
    const std::string shown = in == "-" ? "standard input" : in;
    if (!(tree.total().value > 0)) {
      std::fprintf(stderr, "hearth push: no stack counts in %s\n", shown.c_str());
      return kPushBadInput;
    }
    push::ProfileMeta m = meta;
    if (window && window->hz > 0 && a.hz == 0) m.sample_rate = static_cast<uint32_t>(window->hz);
    const bool windowed = window && window->until >= 0;
    m.until = a.until >= 0 ? a.until : windowed ? window->until : written_at(in);
    m.from = a.from >= 0               ? a.from
             : windowed && a.until < 0 ? window->from
                                       : m.until - std::max<int64_t>(1, std::llround(a.duration));
    if (m.from > m.until) {
      std::fprintf(stderr, "hearth push: --from is after --until\n");
      return kPushBadInput;
    }
    auto body = push::encode_body(tree, m, send_as);
    if (!body) {
      std::fprintf(stderr, "hearth push: %s: %s\n", shown.c_str(), body.error().message.c_str());
      return kPushBadInput;
    }
    if (send_as == push::BodyFormat::kPprof && in != "-") {
      // A pprof profile (read and checked above) goes as it is, with all it holds that folded
      // stacks do not (addresses, lines, labels, its own sample types), gzipped.
      if (auto bytes = read_file(in); bytes && profile::looks_like_pprof(*bytes)) {
        if (profile::is_gzip(*bytes)) {
          body->bytes = std::move(*bytes);
        } else if (auto packed = profile::gzip(*bytes)) {
          body->bytes = std::move(*packed);
        }
      }
    }
    prepared.push_back({"profile " + shown,
                        {push::ingest_target(endpoint->path, m, send_as), body->content_type,
                         std::move(body->bytes)}});
  }

  std::optional<push::Spool> spool;
  if (!a.no_spool) {
    std::string dir = a.spool;
    if (dir.empty()) {
      auto d = push::default_spool_dir();
      if (!d) {
        std::fprintf(stderr, "hearth push: %s\n", d.error().message.c_str());
        return kPushFailed;
      }
      dir = *d;
    }
    auto s = push::Spool::open(dir, static_cast<uint64_t>(a.spool_max_mb * (1 << 20)));
    if (!s) {
      std::fprintf(stderr, "hearth push: %s\n", s.error().message.c_str());
      return kPushFailed;
    }
    spool.emplace(std::move(*s));
  }
  push::Pusher pusher(*endpoint, options, spool ? &*spool : nullptr);
  pusher.flush();
  for (Prepared& p : prepared) pusher.push(p.request, p.what);

  const push::PushTally& t = pusher.tally();
  if (t.failed) return kPushFailed;
  if (t.refused > 0 || t.denied > 0) return kPushRefused;
  if (t.pending > 0) return kPushSpooled;
  return kPushDelivered;
}

}  // namespace hearth::cli
