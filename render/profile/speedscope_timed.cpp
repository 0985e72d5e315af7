#include "render/profile/speedscope_timed.h"

#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hearth::profile {
namespace {

void append_timed_json_string(std::string* out, std::string_view s) {
  *out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One thread's samples so far: frame lists and the rounds they were taken in.
struct TimedThread {
  std::string samples;  // JSON arrays, ','-joined
  std::vector<size_t> rounds;
};

}  // namespace

std::vector<uint64_t> timed_round_ns(const timed_samples::Samples& s) {
  std::vector<uint64_t> gap(s.rounds.size(), 0);
  std::unordered_map<int64_t, size_t> last_of_pid;
  for (size_t r = 0; r < s.rounds.size(); ++r) {
    auto [it, added] = last_of_pid.try_emplace(s.rounds[r].pid, r);
    if (!added) {
      gap[it->second] = s.rounds[r].time_ns - s.rounds[it->second].time_ns;
      it->second = r;
    }
  }
  for (auto [pid, r] : last_of_pid) {  // a process's last sample: the gap before it
    uint64_t before = 0;
    for (size_t q = r; q-- > 0;) {
      if (s.rounds[q].pid == pid) {
        before = gap[q];
        break;
      }
    }
    gap[r] = before;
  }
  return gap;
}

std::string timed_to_speedscope(const timed_samples::Samples& s) {
  std::unordered_map<std::string, size_t> frame_ids;
  std::string frames;
  auto frame_id = [&](std::string_view name) {
    auto [it, added] = frame_ids.try_emplace(std::string(name), frame_ids.size());
    if (added) {
      frames += it->second == 0 ? "{\"name\":" : ",{\"name\":";
      append_timed_json_string(&frames, name);
      frames += '}';
    }
    return it->second;
  };
  // Each stack's frame ids, made once.
  std::vector<std::string> stack_json(s.stacks.size());
  std::vector<bool> made(s.stacks.size(), false);
  std::vector<TimedThread> threads(s.threads.size());
  timed_samples::expand(s, [&](size_t round, std::span<const timed_samples::Sample> sampled) {
    for (const timed_samples::Sample& t : sampled) {
      if (!made[t.stack]) {
        std::string json;
        std::string_view rest = s.stacks[t.stack];
        while (!rest.empty()) {
          size_t semi = rest.find(';');
          if (!json.empty()) json += ',';
          json += std::to_string(frame_id(rest.substr(0, semi)));
          rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
        }
        stack_json[t.stack] = std::move(json);
        made[t.stack] = true;
      }
      TimedThread& th = threads[t.thread];
      th.samples += th.samples.empty() ? "[" : ",[";
      th.samples += stack_json[t.stack];
      th.samples += ']';
      th.rounds.push_back(round);
    }
  });
  const std::vector<uint64_t> gap = timed_round_ns(s);
  std::string profiles;
  for (size_t i = 0; i < threads.size(); ++i) {
    const TimedThread& th = threads[i];
    if (th.rounds.empty()) continue;
    std::string weights;
    uint64_t start = s.rounds[th.rounds.front()].time_ns, end = start;
    for (size_t r : th.rounds) {
      uint64_t w = gap[r] > 0 ? gap[r] : 1;
      if (!weights.empty()) weights += ',';
      weights += std::to_string(w);
      end = s.rounds[r].time_ns + w;
    }
    if (!profiles.empty()) profiles += ',';
    profiles += "{\"type\":\"sampled\",\"name\":";
    append_timed_json_string(&profiles, s.threads[i].root);
    profiles += ",\"unit\":\"nanoseconds\",\"startValue\":" + std::to_string(start) +
                ",\"endValue\":" + std::to_string(end) + ",\"samples\":[" + th.samples +
                "],\"weights\":[" + weights + "]}";
  }
  return "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":"
         "\"hearth (timed samples)\",\"activeProfileIndex\":0,\"shared\":{\"frames\":[" +
         frames + "]},\"profiles\":[" + profiles + "]}\n";
}

}  // namespace hearth::profile
