#include "render/serve/listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "render/svg/xml.h"

#include "common/url.h"

namespace hearth::serve {
namespace {

std::string utc_time(time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace

std::string encode_path(std::string_view s) {
  return percent_encode(s, "/");
}

std::vector<ListingEntry> list_directory(int dir_fd) {
  std::vector<ListingEntry> out;
  int fd = ::dup(dir_fd);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return out;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || name.starts_with(".")) continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    ListingEntry en;
    en.name = name;
    en.mtime = st.st_mtime;
    en.size = st.st_size;
    if (S_ISDIR(st.st_mode)) {
      en.is_dir = true;
      struct stat ist {};
      std::string index = name + "/index.html";
      if (::fstatat(dir_fd, index.c_str(), &ist, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISREG(ist.st_mode)) {
        en.is_report = true;
        struct stat rst {};
        std::string meta = name + "/report.json";
        en.mtime = ::fstatat(dir_fd, meta.c_str(), &rst, AT_SYMLINK_NOFOLLOW) == 0 ? rst.st_mtime
                                                                                   : ist.st_mtime;
      }
    } else if (!S_ISREG(st.st_mode)) {
      continue;
    }
    out.push_back(std::move(en));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const ListingEntry& a, const ListingEntry& b) {
    if (a.is_report != b.is_report) return a.is_report;
    if (a.is_report && a.mtime != b.mtime) return a.mtime > b.mtime;
    if (a.is_dir != b.is_dir) return a.is_dir;
    return a.name < b.name;
  });
  return out;
}

std::string index_page(const std::string& url_path, const std::vector<ListingEntry>& entries) {
  std::string title = "hearth reports: " + url_path;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<meta name=\"color-scheme\" content=\"light dark\"><title>";
  svg::append_escaped(&h, title);
  h += "</title><style>body{font-family:system-ui,\"DejaVu Sans\",sans-serif;margin:2em}"
       "td{padding:.2em 1em .2em 0}a{text-decoration:none}</style></head><body><h1>";
  svg::append_escaped(&h, title);
  h += "</h1>\n";
  bool any_report = false;
  for (const ListingEntry& e : entries) any_report |= e.is_report;
  if (any_report) {
    h += "<h2>Reports, newest first</h2>\n<table>\n";
    for (const ListingEntry& e : entries) {
      if (!e.is_report) continue;
      h += "<tr><td><a href=\"";
      svg::append_escaped(&h, encode_path(e.name));
      h += "/\">";
      svg::append_escaped(&h, e.name);
      h += "</a></td><td>" + utc_time(e.mtime) + "</td></tr>\n";
    }
    h += "</table>\n";
  }
  h += "<h2>Files</h2>\n<table>\n";
  if (url_path != "/") h += "<tr><td><a href=\"../\">../</a></td></tr>\n";
  for (const ListingEntry& e : entries) {
    if (e.is_report) continue;
    h += "<tr><td><a href=\"";
    svg::append_escaped(&h, encode_path(e.name) + (e.is_dir ? "/" : ""));
    h += "\">";
    svg::append_escaped(&h, e.name + (e.is_dir ? "/" : ""));
    h += "</a></td><td>" + (e.is_dir ? std::string() : std::to_string(e.size) + " bytes") +
         "</td></tr>\n";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace hearth::serve
