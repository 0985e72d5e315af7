#include "render/profile/pprof_reader.h"

#include <protozero/exception.hpp>
#include <protozero/pbf_reader.hpp>

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "render/profile/gzip_data.h"
#include "render/profile/pprof_labels.h"

namespace hearth::profile {
namespace {

using protozero::pbf_wire_type;
using protozero::tag_and_type;

constexpr auto kLen = pbf_wire_type::length_delimited;
constexpr auto kVarint = pbf_wire_type::varint;

// A profile's samples unfold to at most this many frames a byte of it (plus a million): more than
// any real profile (a location id is a byte or two), far less than a location of many inlined
// lines repeated by every sample could make.
constexpr uint64_t kFramesPerByte = 64;

std::string_view view(protozero::data_view v) {
  return {v.data(), v.size()};
}

// A repeated integer field, packed (LEN) or one element per occurrence (VARINT): both are valid
// encodings of it. Adds its elements to *OUT.
template <typename T>
void take_repeated(protozero::pbf_reader* m, std::vector<T>* out) {
  if (m->wire_type() == kLen) {
    if constexpr (std::is_same_v<T, uint64_t>) {
      for (uint64_t v : m->get_packed_uint64()) out->push_back(v);
    } else {
      for (int64_t v : m->get_packed_int64()) out->push_back(v);
    }
  } else if (m->wire_type() == kVarint) {
    if constexpr (std::is_same_v<T, uint64_t>) {
      out->push_back(m->get_uint64());
    } else {
      out->push_back(m->get_int64());
    }
  } else {
    m->skip();
  }
}

struct Location {
  uint64_t mapping_id = 0;
  uint64_t address = 0;
  uint32_t first_line = 0;  // function ids in lines_, innermost first, as written
  uint32_t line_count = 0;
};

struct Label {
  int64_t key = 0, str = 0, num = 0;
};

class Decoder {
 public:
  explicit Decoder(std::string_view data) : data_(data) {}

  Result<void> read_tables() {
    protozero::pbf_reader m(data_.data(), data_.size());
    while (m.next()) {
      switch (m.tag_and_type()) {
        case tag_and_type(1, kLen): {
          protozero::pbf_reader vt = m.get_message();
          int64_t type = 0, unit = 0;
          while (vt.next()) {
            if (vt.tag_and_type() == tag_and_type(1, kVarint)) {
              type = vt.get_int64();
            } else if (vt.tag_and_type() == tag_and_type(2, kVarint)) {
              unit = vt.get_int64();
            } else {
              vt.skip();
            }
          }
          sample_types_.push_back({type, unit});
          break;
        }
        case tag_and_type(3, kLen):
          read_mapping(m.get_message());
          break;
        case tag_and_type(4, kLen):
          read_location(m.get_message());
          break;
        case tag_and_type(5, kLen):
          read_function(m.get_message());
          break;
        case tag_and_type(6, kLen):
          strings_.push_back(view(m.get_view()));
          break;
        case tag_and_type(14, kVarint):
          default_type_ = m.get_int64();
          break;
        default:
          m.skip();
      }
    }
    if (strings_.empty() || !strings_[0].empty()) {
      return fail("not a pprof profile: its string table does not start with \"\"");
    }
    if (sample_types_.empty()) return fail("not a pprof profile: it has no sample types");
    for (auto [type, unit] : sample_types_) {
      RETURN_IF_ERROR(check_string(type));
      RETURN_IF_ERROR(check_string(unit));
    }
    RETURN_IF_ERROR(check_string(default_type_));
    // The value to take.
    value_index_ = sample_types_.size() - 1;
    bool found = false;
    for (size_t i = 0; i < sample_types_.size() && default_type_ != 0; ++i) {
      if (strings_[sample_types_[i].first] == strings_[default_type_]) {
        value_index_ = i, found = true;
        break;
      }
    }
    for (size_t i = 0; i < sample_types_.size() && !found; ++i) {
      if (strings_[sample_types_[i].first] == "samples" &&
          strings_[sample_types_[i].second] == "count") {
        value_index_ = i, found = true;
      }
    }
    return name_locations();
  }

  // Checks every sample (the callback is not called), or gives each one to EACH.
  Result<PprofStats> read_samples(
      const std::function<void(std::span<const std::string_view>, int64_t)>* each) {
    PprofStats stats;
    stats.sample_type = strings_[sample_types_[value_index_].first];
    stats.unit = strings_[sample_types_[value_index_].second];
    protozero::pbf_reader m(data_.data(), data_.size());
    std::vector<uint64_t> location_ids;
    std::vector<int64_t> values;
    std::vector<Label> labels;
    std::vector<std::string_view> frames;
    std::string process_root, thread_root;
    uint64_t total_frames = 0;
    const uint64_t max_frames = kFramesPerByte * data_.size() + (1 << 20);
    while (m.next()) {
      if (m.tag_and_type() != tag_and_type(2, kLen)) {
        m.skip();
        continue;
      }
      protozero::pbf_reader s = m.get_message();
      location_ids.clear();
      values.clear();
      labels.clear();
      while (s.next()) {
        switch (s.tag()) {
          case 1:
            take_repeated(&s, &location_ids);
            break;
          case 2:
            take_repeated(&s, &values);
            break;
          case 3:
            if (s.wire_type() == kLen) {
              labels.push_back(read_label(s.get_message()));
            } else {
              s.skip();
            }
            break;
          default:
            s.skip();
        }
      }
      if (values.size() != sample_types_.size()) {
        return fail("not a valid pprof profile: a sample has " + std::to_string(values.size()) +
                    " values for " + std::to_string(sample_types_.size()) + " sample types");
      }
      RootLabels root;
      for (const Label& l : labels) {
        RETURN_IF_ERROR(check_string(l.key));
        RETURN_IF_ERROR(check_string(l.str));
        std::string_view key = strings_[l.key];
        if (key == "thread") root.thread = strings_[l.str];
        if (key == "process") root.process = strings_[l.str];
        if (key == "thread_id") root.tid = l.num;
        if (key == "pid") root.pid = l.num;
      }
      frames.clear();
      if (!root.thread.empty() || !root.process.empty()) {
        root_frames(root, &process_root, &thread_root);
        if (!process_root.empty()) frames.push_back(process_root);
        if (!thread_root.empty()) frames.push_back(thread_root);
      }
      uint64_t sample_frames = frames.size();
      for (size_t i = location_ids.size(); i-- > 0;) {
        auto it = location_index_.find(location_ids[i]);
        if (it == location_index_.end()) {
          return fail("not a valid pprof profile: a sample refers to location " +
                      std::to_string(location_ids[i]) + ", which is not in it");
        }
        const auto [first, count] = location_frames_[it->second];
        sample_frames += count;
        if (each != nullptr) {
          frames.insert(frames.end(), frame_names_.begin() + first,
                        frame_names_.begin() + first + count);
        }
      }
      // Inlined lines repeat a location's frames wherever it is used: bound what they unfold to.
      total_frames += sample_frames;
      if (total_frames > max_frames) {
        return fail("not a valid pprof profile: its samples unfold to more than " +
                    std::to_string(max_frames) + " frames (" + std::to_string(kFramesPerByte) +
                    " a byte of it)");
      }
      int64_t value = values[value_index_];
      if (value < 0 || sample_frames == 0) {
        ++stats.skipped;
        continue;
      }
      ++stats.samples;
      if (each != nullptr) (*each)(frames, value);
    }
    return stats;
  }

 private:
  Result<void> check_string(int64_t index) const {
    if (index < 0 || static_cast<uint64_t>(index) >= strings_.size()) {
      return fail("not a valid pprof profile: string " + std::to_string(index) + " of " +
                  std::to_string(strings_.size()) + " is past its string table");
    }
    return {};
  }

  void read_mapping(protozero::pbf_reader m) {
    uint64_t id = 0;
    int64_t file = 0;
    while (m.next()) {
      if (m.tag_and_type() == tag_and_type(1, kVarint)) {
        id = m.get_uint64();
      } else if (m.tag_and_type() == tag_and_type(5, kVarint)) {
        file = m.get_int64();
      } else {
        m.skip();
      }
    }
    mapping_files_[id] = file;
  }

  void read_location(protozero::pbf_reader m) {
    uint64_t id = 0;
    Location loc;
    loc.first_line = static_cast<uint32_t>(line_functions_.size());
    while (m.next()) {
      switch (m.tag_and_type()) {
        case tag_and_type(1, kVarint):
          id = m.get_uint64();
          break;
        case tag_and_type(2, kVarint):
          loc.mapping_id = m.get_uint64();
          break;
        case tag_and_type(3, kVarint):
          loc.address = m.get_uint64();
          break;
        case tag_and_type(4, kLen): {
          protozero::pbf_reader line = m.get_message();
          uint64_t function_id = 0;
          while (line.next()) {
            if (line.tag_and_type() == tag_and_type(1, kVarint)) {
              function_id = line.get_uint64();
            } else {
              line.skip();
            }
          }
          line_functions_.push_back(function_id);
          ++loc.line_count;
          break;
        }
        default:
          m.skip();
      }
    }
    location_index_[id] = locations_.size();
    locations_.push_back(loc);
  }

  void read_function(protozero::pbf_reader m) {
    uint64_t id = 0;
    int64_t name = 0, system_name = 0;
    while (m.next()) {
      if (m.tag_and_type() == tag_and_type(1, kVarint)) {
        id = m.get_uint64();
      } else if (m.tag_and_type() == tag_and_type(2, kVarint)) {
        name = m.get_int64();
      } else if (m.tag_and_type() == tag_and_type(3, kVarint)) {
        system_name = m.get_int64();
      } else {
        m.skip();
      }
    }
    functions_[id] = {name, system_name};
  }

  Label read_label(protozero::pbf_reader m) {
    Label l;
    while (m.next()) {
      if (m.tag_and_type() == tag_and_type(1, kVarint)) {
        l.key = m.get_int64();
      } else if (m.tag_and_type() == tag_and_type(2, kVarint)) {
        l.str = m.get_int64();
      } else if (m.tag_and_type() == tag_and_type(3, kVarint)) {
        l.num = m.get_int64();
      } else {
        m.skip();
      }
    }
    return l;
  }

  // NAME as one folded frame: a view of the string table, or of a changed copy.
  std::string_view frame_name(std::string_view name) {
    if (name.find_first_of(";\n\r") == std::string_view::npos) return name;
    std::string& s = made_.emplace_back(name);
    for (char& c : s) {
      if (c == ';') c = ':';
      if (c == '\n' || c == '\r') c = ' ';
    }
    return s;
  }

  // The frames of each location, root first: its lines' functions outermost first.
  Result<void> name_locations() {
    location_frames_.reserve(locations_.size());
    for (const Location& loc : locations_) {
      const auto first = static_cast<uint32_t>(frame_names_.size());
      for (uint32_t i = loc.line_count; i-- > 0;) {
        uint64_t function_id = line_functions_[loc.first_line + i];
        auto f = functions_.find(function_id);
        if (f == functions_.end()) {
          return fail("not a valid pprof profile: a location refers to function " +
                      std::to_string(function_id) + ", which is not in it");
        }
        RETURN_IF_ERROR(check_string(f->second.first));
        RETURN_IF_ERROR(check_string(f->second.second));
        std::string_view name = strings_[f->second.first];
        if (name.empty()) name = strings_[f->second.second];
        frame_names_.push_back(frame_name(name));
      }
      if (loc.line_count == 0) frame_names_.push_back(unsymbolized(loc));
      location_frames_.push_back({first, static_cast<uint32_t>(frame_names_.size()) - first});
    }
    return {};
  }

  std::string_view unsymbolized(const Location& loc) {
    if (auto m = mapping_files_.find(loc.mapping_id);
        m != mapping_files_.end() && m->second > 0 &&
        static_cast<uint64_t>(m->second) < strings_.size()) {
      std::string_view file = strings_[m->second];
      file = file.substr(file.rfind('/') + 1);  // npos + 1 == 0: the whole name
      if (!file.empty()) return made_.emplace_back("[" + std::string(frame_name(file)) + "]");
    }
    if (loc.address == 0) return "[unknown]";
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(loc.address));
    return made_.emplace_back(hex);
  }

  std::string_view data_;
  std::vector<std::string_view> strings_;
  std::vector<std::pair<int64_t, int64_t>> sample_types_;  // type, unit
  int64_t default_type_ = 0;
  size_t value_index_ = 0;
  std::unordered_map<uint64_t, int64_t> mapping_files_;                  // id -> file
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> functions_;  // id -> names
  std::vector<Location> locations_;
  std::vector<uint64_t> line_functions_;
  std::unordered_map<uint64_t, size_t> location_index_;         // id -> index in locations_
  std::vector<std::pair<uint32_t, uint32_t>> location_frames_;  // first, count in frame_names_
  std::vector<std::string_view> frame_names_;
  std::deque<std::string> made_;  // names that are not views of the data
};

}  // namespace

bool looks_like_pprof(std::string_view head) {
  if (is_gzip(head)) return true;
  // Field 1 (sample_type, a message) of a few bytes, whose first field is 1 (type, a varint):
  // "\n", a length, "\b": not how a text file starts.
  return head.size() >= 3 && head[0] == 0x0a && static_cast<unsigned char>(head[1]) < 0x80 &&
         head[2] == 0x08;
}

Result<PprofStats> read_pprof(
    std::string_view data,
    const std::function<void(std::span<const std::string_view>, int64_t)>& each) {
  try {
    Decoder d(data);
    RETURN_IF_ERROR(d.read_tables());
    RETURN_IF_ERROR(d.read_samples(nullptr));
    return d.read_samples(&each);
  } catch (const protozero::exception& e) {
    return fail(std::string("not a valid pprof profile: truncated or corrupt protobuf (") +
                e.what() + ")");
  }
}

}  // namespace hearth::profile
