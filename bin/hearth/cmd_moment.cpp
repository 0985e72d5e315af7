#include "bin/hearth/cmd_moment.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <regex>

#include "bin/hearth/pictures.h"
#include "common/atomic_file.h"
#include "common/file_io.h"
#include "render/moment/moment.h"
#include "render/moment/moment_picture.h"
#include "render/moment/moment_text.h"

namespace hearth::cli {

std::optional<MomentTime> parse_moment_time(const std::string& s) {
  static const std::regex seconds(R"(^(\d{1,9})(\.(\d{1,9}))?$)");
  static const std::regex iso(
      R"(^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))?$)");
  std::smatch m;
  auto frac_ns = [](const std::string& digits) {
    std::string d = digits;
    d.resize(9, '0');
    return static_cast<uint64_t>(std::stoull(d));
  };
  if (std::regex_match(s, m, seconds)) {
    MomentTime t;
    t.ns = std::stoull(m[1].str()) * 1000000000ull + (m[3].matched ? frac_ns(m[3].str()) : 0);
    return t;
  }
  if (!std::regex_match(s, m, iso)) return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::stoi(m[1].str()) - 1900;
  tm.tm_mon = std::stoi(m[2].str()) - 1;
  tm.tm_mday = std::stoi(m[3].str());
  tm.tm_hour = std::stoi(m[4].str());
  tm.tm_min = std::stoi(m[5].str());
  tm.tm_sec = std::stoi(m[6].str());
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return std::nullopt;
  time_t secs;
  if (m[9].matched) {
    secs = timegm(&tm);
    if (m[10].matched) {
      const int64_t off = std::stoi(m[11].str()) * 3600 + std::stoi(m[12].str()) * 60;
      secs -= m[10].str() == "+" ? off : -off;
    }
  } else {
    tm.tm_isdst = -1;  // local time, whatever its daylight saving
    secs = mktime(&tm);
  }
  if (secs == static_cast<time_t>(-1)) return std::nullopt;
  MomentTime t;
  t.wall = true;
  t.wall_ns = static_cast<int64_t>(secs) * 1000000000 +
              static_cast<int64_t>(m[8].matched ? frac_ns(m[8].str()) : 0);
  return t;
}

bool moment_output_ok(const std::string& out) {
  return out == "-" || out.ends_with(".txt") || format_of(out) != OutFormat::kUnknown;
}

int run_moment(const timed_samples::Samples& samples, const std::string& path, const MomentTime& t,
               const Pattern* only, const std::string& output, double width, double scale) {
  uint64_t at = t.ns;
  if (t.wall) {
    if (samples.real_ns == 0) {
      std::fprintf(stderr,
                   "hearth heatmap: %s: the samples carry no wall clock: give --moment in seconds "
                   "since time 0\n",
                   path.c_str());
      return 2;
    }
    const int64_t d = t.wall_ns - static_cast<int64_t>(samples.real_ns);
    at = d > 0 ? static_cast<uint64_t>(d) : 0;
  }
  const moment::Moment m = moment::moment_at(samples, moment::nearest_round(samples, at), only);
  Result<void> written;
  if (output == "-" || output.ends_with(".txt")) {
    const std::string text = moment::moment_text(samples, m);
    if (output == "-") {
      if (write_all(STDOUT_FILENO, text.data(), text.size()) != 0) {
        std::fprintf(stderr, "hearth heatmap: cannot write standard output\n");
        return 1;
      }
      return 0;
    }
    written = write_file_atomically(output, text);
  } else {
    written = write_picture(moment::layout_moment(samples, m, {.width = width}), output,
                            format_of(output), scale);
  }
  if (!written) {
    std::fprintf(stderr, "hearth heatmap: %s\n", written.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "hearth heatmap: wrote %s: %s\n", output.c_str(),
               moment::info_text(samples, m).c_str());
  return 0;
}

}  // namespace hearth::cli
