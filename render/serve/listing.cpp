#include "render/serve/listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "render/serve/safe_path.h"
#include "render/svg/xml.h"

#include "common/unique_fd.h"
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

// REL's report.json beneath DIR_FD, summarized; unreadable (a symlink out, not a regular file,
// larger than kMaxReportJson, damaged) gives a summary that says so.
ReportSummary read_summary(int dir_fd, const std::string& rel) {
  auto fd = open_beneath(dir_fd, rel);
  if (!fd) return {};
  UniqueFd f(*fd);
  struct stat st {};
  if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size > static_cast<off_t>(kMaxReportJson))
    return {};
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.get(), text.data() + got, text.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return summarize_report(text);
}

// The time a report is sorted and shown by: its recording's start, else its file's time.
time_t report_time(const ListingEntry& e) {
  return e.summary.started.value_or(e.mtime);
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
        en.summary = read_summary(dir_fd, meta);
      }
    } else if (!S_ISREG(st.st_mode)) {
      continue;
    }
    out.push_back(std::move(en));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const ListingEntry& a, const ListingEntry& b) {
    if (a.is_report != b.is_report) return a.is_report;
    if (a.is_report && report_time(a) != report_time(b)) return report_time(a) > report_time(b);
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
      "<meta name=\"color-scheme\" content=\"light dark\"><link rel=\"icon\" "
      "href=\"data:,\"><title>";
  svg::append_escaped(&h, title);
  h += "</title><style>body{font-family:system-ui,\"DejaVu Sans\",sans-serif;margin:2em}"
       "td,th{padding:.2em 1em .2em 0;text-align:left;vertical-align:top}"
       "a{text-decoration:none}</style></head><body><h1>";
  svg::append_escaped(&h, title);
  h += "</h1>\n";
  bool any_report = false;
  for (const ListingEntry& e : entries) any_report |= e.is_report;
  if (any_report) {
    // The columns some report has a value for.
    struct Column {
      const char* heading;
      std::string ReportSummary::*field;
    };
    static const Column kColumns[] = {{"Target", &ReportSummary::target},
                                      {"Host", &ReportSummary::host},
                                      {"Rule fired", &ReportSummary::trigger},
                                      {"Window", &ReportSummary::window},
                                      {"Sampling cost", &ReportSummary::cost}};
    std::vector<const Column*> shown;
    for (const Column& c : kColumns) {
      for (const ListingEntry& e : entries) {
        if (e.is_report && !(e.summary.*c.field).empty()) {
          shown.push_back(&c);
          break;
        }
      }
    }
    h += "<h2>Reports, newest first</h2>\n"
         "<p><input id=\"filter\" type=\"search\" placeholder=\"Filter reports\" "
         "aria-label=\"Filter reports\" autocomplete=\"off\"></p>\n"
         "<table id=\"reports\">\n<thead><tr><th>Report</th><th>Started</th>";
    for (const Column* c : shown) h += std::string("<th>") + c->heading + "</th>";
    h += "</tr></thead>\n<tbody>\n";
    for (const ListingEntry& e : entries) {
      if (!e.is_report) continue;
      h += "<tr><td><a href=\"";
      svg::append_escaped(&h, encode_path(e.name));
      h += "/\">";
      svg::append_escaped(&h, e.name);
      h += "</a></td><td>" + utc_time(report_time(e));
      if (!e.summary.started)
        h += e.summary.readable ? " (file time)" : " (file time; no readable report.json)";
      h += "</td>";
      for (const Column* c : shown) {
        h += "<td>";
        svg::append_escaped(&h, e.summary.*c->field);
        h += "</td>";
      }
      h += "</tr>\n";
    }
    h += "</tbody></table>\n"
         // Rows whose text holds every word typed, case aside; the filter is kept in the URL's
         // fragment so a shared link shows the same rows.
         "<script>(function(){var f=document.getElementById('filter');"
         "var rows=document.querySelectorAll('#reports tbody tr');"
         "function apply(){var words=f.value.toLowerCase().split(/\\s+/).filter(Boolean);"
         "rows.forEach(function(r){var t=r.textContent.toLowerCase();"
         "r.hidden=!words.every(function(w){return t.indexOf(w)>=0;});});"
         "history.replaceState(null,'',f.value?'#'+encodeURIComponent(f.value):location.pathname);}"
         "if(location.hash.length>1){try{f.value=decodeURIComponent(location.hash.slice(1));}"
         "catch(e){}}f.addEventListener('input',apply);apply();})();</script>\n";
  }
  bool any_other = url_path != "/";
  for (const ListingEntry& e : entries) any_other |= !e.is_report;
  if (!any_other) {
    if (!any_report) h += "<p>No reports here yet.</p>\n";
    h += "</body></html>\n";
    return h;
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
