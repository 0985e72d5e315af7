#include "render/profile/pprof_writer.h"

#include <protozero/pbf_writer.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "common/atomic_file.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_labels.h"

namespace hearth::profile {
namespace {

// profile.proto's field numbers.
namespace field {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
                   kStringTable = 6, kPeriodType = 11, kPeriod = 12, kDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
constexpr uint32_t kLabelKey = 1, kLabelStr = 2, kLabelNum = 3;
constexpr uint32_t kMappingId = 1, kMappingFilename = 5, kMappingHasFunctions = 7;
constexpr uint32_t kLocationId = 1, kLocationMappingId = 2, kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3;
}  // namespace field

// pprof's string table: index 0 is "".
class StringTable {
 public:
  StringTable() { index(""); }
  int64_t index(std::string_view s) {
    auto [it, added] = ids_.try_emplace(std::string(s), static_cast<int64_t>(strings_.size()));
    if (added) strings_.push_back(it->first);
    return it->second;
  }
  void write(protozero::pbf_writer* pw) const {
    for (std::string_view s : strings_) pw->add_string(field::kStringTable, s.data(), s.size());
  }

 private:
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string_view> strings_;  // views of ids_'s keys (stable in a node-based map)
};

void add_value_type(protozero::pbf_writer* pw, uint32_t tag, int64_t type, int64_t unit) {
  protozero::pbf_writer vt(*pw, tag);
  vt.add_int64(field::kValueTypeType, type);
  vt.add_int64(field::kValueTypeUnit, unit);
}

void add_label(protozero::pbf_writer* sample, int64_t key, int64_t str, int64_t num) {
  protozero::pbf_writer label(*sample, field::kSampleLabel);
  label.add_int64(field::kLabelKey, key);
  if (str != 0) label.add_int64(field::kLabelStr, str);
  if (num != 0) label.add_int64(field::kLabelNum, num);
}

// A frame the sampler could not name, "[MODULE+0xOFFSET]": its module and offset.
struct ModuleOffset {
  std::string_view module;
  uint64_t offset = 0;
};

std::optional<ModuleOffset> module_offset(std::string_view frame) {
  size_t plus = frame.rfind("+0x");
  if (frame.size() < 6 || frame.front() != '[' || frame.back() != ']' ||
      plus == std::string_view::npos || plus < 2) {
    return std::nullopt;
  }
  std::string_view hex = frame.substr(plus + 3, frame.size() - plus - 4);
  ModuleOffset m{frame.substr(1, plus - 1), 0};
  auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), m.offset, 16);
  if (hex.empty() || error != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
  return m;
}

}  // namespace

Result<std::string> to_pprof(const FrameTree& tree, const PprofWriteOptions& options) {
  if (tree.differential()) {
    return fail(
        "pprof holds one column of counts: a differential profile (BASE NEW) cannot be "
        "written as pprof");
  }
  if (tree.fractional()) {
    return fail(
        "pprof holds whole counts: a profile with fractional counts cannot be written "
        "as pprof");
  }
  if (!(options.period_ns >= 0 && options.period_ns < 9e18)) {
    return fail("a sampling period of " + std::to_string(options.period_ns) +
                " ns is past pprof's int64");
  }
  const bool timed = options.period_ns > 0;
  const int64_t period = timed ? std::max<int64_t>(1, std::llround(options.period_ns)) : 0;

  std::string out;
  protozero::pbf_writer pw(out);
  StringTable strings;
  const int64_t samples = strings.index("samples");
  add_value_type(&pw, field::kSampleType, samples, strings.index("count"));
  if (options.time_type.empty()) return fail("pprof: the time sample type has no name");
  const int64_t wall = timed ? strings.index(options.time_type) : 0;
  const int64_t nanoseconds = timed ? strings.index("nanoseconds") : 0;
  if (timed) add_value_type(&pw, field::kSampleType, wall, nanoseconds);
  const int64_t key_thread = strings.index("thread"), key_thread_id = strings.index("thread_id"),
                key_process = strings.index("process"), key_pid = strings.index("pid");

  // One function and one location (same id, from 1) per distinct frame name, as used.
  std::vector<uint64_t> location_of(tree.name_count(), 0);
  std::vector<NameId> location_names;  // by id - 1

  // Depth-first over the tree, keeping the path's frames.
  std::vector<NodeId> path_nodes;
  std::vector<std::string_view> path;
  std::vector<uint64_t> location_ids;
  struct Item {
    NodeId node;
    size_t depth;  // of the node's parent's path
  };
  std::vector<Item> todo;
  for (NodeId c = tree.node(kRoot).first_child; c != kNone; c = tree.node(c).next_sibling) {
    todo.push_back({c, 0});
  }
  while (!todo.empty()) {
    Item it = todo.back();
    todo.pop_back();
    path_nodes.resize(it.depth);
    path.resize(it.depth);
    path_nodes.push_back(it.node);
    path.push_back(tree.name(tree.node(it.node).name));
    for (NodeId c = tree.node(it.node).first_child; c != kNone; c = tree.node(c).next_sibling) {
      todo.push_back({c, it.depth + 1});
    }
    Count self = tree.self(it.node);
    if (self.whole == 0) continue;
    if (self.whole > static_cast<uint64_t>(INT64_MAX)) {
      return fail("a count of " + std::to_string(self.whole) + " is past pprof's int64");
    }
    RootLabels labels;
    size_t first = options.root_labels ? take_root_labels(path, &labels) : 0;
    location_ids.clear();
    for (size_t i = path.size(); i-- > first;) {  // leaf first
      NameId name = tree.node(path_nodes[i]).name;
      if (location_of[name] == 0) {
        location_names.push_back(name);
        location_of[name] = location_names.size();
      }
      location_ids.push_back(location_of[name]);
    }
    const auto count = static_cast<int64_t>(self.whole);
    protozero::pbf_writer sample(pw, field::kSample);
    sample.add_packed_uint64(field::kSampleLocationId, location_ids.begin(), location_ids.end());
    int64_t values[2] = {count, 0};
    if (timed && __builtin_mul_overflow(count, period, &values[1])) {
      return fail("a count of " + std::to_string(count) +
                  " samples is past pprof's int64 in "
                  "nanoseconds");
    }
    sample.add_packed_int64(field::kSampleValue, values, values + (timed ? 2 : 1));
    if (!labels.process.empty()) {
      add_label(&sample, key_process, strings.index(labels.process), 0);
    }
    if (labels.pid >= 0) add_label(&sample, key_pid, 0, labels.pid);
    if (!labels.thread.empty()) add_label(&sample, key_thread, strings.index(labels.thread), 0);
    if (labels.tid >= 0) add_label(&sample, key_thread_id, 0, labels.tid);
  }

  // Frames the sampler left unnamed keep their module (a mapping, by file name) and offset (the
  // location's address; the mapping starts at 0), besides their name.
  std::unordered_map<std::string_view, uint64_t> mapping_of;  // module -> mapping id
  for (NameId name : location_names) {
    if (auto m = module_offset(tree.name(name))) {
      if (mapping_of.try_emplace(m->module, mapping_of.size() + 1).second) {
        protozero::pbf_writer mapping(pw, field::kMapping);
        mapping.add_uint64(field::kMappingId, mapping_of.size());
        mapping.add_int64(field::kMappingFilename, strings.index(m->module));
        mapping.add_bool(field::kMappingHasFunctions, true);
      }
    }
  }
  for (size_t i = 0; i < location_names.size(); ++i) {
    protozero::pbf_writer loc(pw, field::kLocation);
    loc.add_uint64(field::kLocationId, i + 1);
    if (auto m = module_offset(tree.name(location_names[i]))) {
      loc.add_uint64(field::kLocationMappingId, mapping_of[m->module]);
      loc.add_uint64(field::kLocationAddress, m->offset);
    }
    protozero::pbf_writer line(loc, field::kLocationLine);
    line.add_uint64(field::kLineFunctionId, i + 1);
  }
  for (size_t i = 0; i < location_names.size(); ++i) {
    int64_t name = strings.index(tree.name(location_names[i]));
    protozero::pbf_writer fn(pw, field::kFunction);
    fn.add_uint64(field::kFunctionId, i + 1);
    fn.add_int64(field::kFunctionName, name);
    fn.add_int64(field::kFunctionSystemName, name);
  }
  strings.write(&pw);
  if (timed) {
    add_value_type(&pw, field::kPeriodType, wall, nanoseconds);
    pw.add_int64(field::kPeriod, period);
  }
  pw.add_int64(field::kDefaultSampleType, samples);
  return out;
}

Result<void> write_pprof(const FrameTree& tree, const std::string& path,
                         const PprofWriteOptions& options) {
  ASSIGN_OR_RETURN(std::string raw, to_pprof(tree, options));
  ASSIGN_OR_RETURN(std::string packed, gzip(raw));
  return write_file_atomically(path, packed);
}

}  // namespace hearth::profile
