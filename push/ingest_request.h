// What `hearth push` sends to Grafana Pyroscope's HTTP ingest API:
//   POST /ingest?name=NAME&from=FROM&until=UNTIL&sampleRate=HZ&spyName=hearth&format=FORMAT
// with the profile as the body. NAME is the service (application) name and the series' labels,
// `SERVICE.TYPE{k=v,…}`: with format=folded the name ends in the profile type (cpu, wall), which
// the server reads from it and refuses when unknown; with format=pprof the name is a prefix,
// `SERVICE{k=v,…}`, and the type comes from the profile's sample types (Pyroscope's "Server
// HTTP API" page). FROM and UNTIL are Unix seconds; HZ a whole number (the server reads it as an
// integer). Names and values are checked here against what the server accepts, so a bad one is
// one line before anything is sent, not a 400 after.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::push {

enum class BodyFormat : uint8_t { kFolded, kPprof };
enum class ProfileType : uint8_t { kWall, kCpu };  // every thread's stacks / on-CPU ones only

std::string_view format_name(BodyFormat format);  // "folded", "pprof"
std::string_view type_name(ProfileType type);     // "wall", "cpu"

struct Label {
  std::string name;
  std::string value;
};

struct ProfileMeta {
  std::string service;  // the application: Pyroscope's service_name
  ProfileType type = ProfileType::kWall;
  std::vector<Label> labels;  // unique names; written sorted by name
  int64_t from = 0;           // Unix seconds: when the profile's window began
  int64_t until = 0;          // ... and ended
  uint32_t sample_rate = 0;   // Hz: samples per second of each thread
};

// The service name: 1-256 bytes of letters, digits and - _ . / (what the server's name parser
// accepts), not ending in a profile type's suffix the server would take for one (".cpu").
Result<void> check_service(std::string_view service);
// A label's name: a letter or _ first, then letters, digits, _ (Prometheus's rule, which
// Pyroscope's validation applies); at most 1024 bytes; not reserved (__*, service_name: given by
// --service). Its value: 1-2048 bytes of UTF-8 with no control characters, no leading or
// trailing blank, and none of , { } = (the name's own syntax, which has no escapes).
Result<void> check_label(const Label& label);
// "k=v" as a label, checked.
Result<Label> parse_label(std::string_view text);
// The most labels a series gets from hearth: Pyroscope's default limit is 30 label names per
// series, and the server adds its own (__name__, service_name, pyroscope_spy, __delta__).
inline constexpr size_t kMaxLabels = 25;
// The labels checked, with no name twice and at most kMaxLabels.
Result<void> check_labels(const std::vector<Label>& labels);

// NAME as the query carries it (not yet percent-encoded): "api.wall{host=a,zone=b}".
std::string ingest_name(const ProfileMeta& meta, BodyFormat format);
// The request's path and query: "PATH?name=…&from=…&until=…&sampleRate=…&spyName=hearth&format=…",
// every value percent-encoded.
std::string ingest_target(std::string_view path, const ProfileMeta& meta, BodyFormat format);

struct Body {
  std::string content_type;
  std::string bytes;
};
// The profile as the body of FORMAT: folded stacks (one line per stack, root first, thread
// roots kept as frames), or pprof, gzipped, with samples/count and TYPE/nanoseconds at the
// sample rate and the thread roots kept as frames too (pprof labels would become series labels
// in Pyroscope: one series per thread). Fails on what the format cannot hold (fractional or
// differential counts).
Result<Body> encode_body(const profile::FrameTree& tree, const ProfileMeta& meta,
                         BodyFormat format);

}  // namespace hearth::push
