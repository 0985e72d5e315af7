// The page `hearth serve` shows for a directory without an index.html: the reports below it
// (subdirectories with an index.html, newest first, each summarized from its report.json), then
// its other directories and files. Hidden names (starting with '.') and anything but
// directories and regular files are left out.
#pragma once

#include <sys/types.h>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "render/serve/report_summary.h"

namespace hearth::serve {

struct ListingEntry {
  std::string name;
  bool is_report = false;  // a directory with an index.html
  bool is_dir = false;
  time_t mtime = 0;       // reports: of report.json, else of index.html
  off_t size = 0;         // bytes
  ReportSummary summary;  // reports: from report.json (read beneath the directory, bounded)
};

// Percent-encodes everything but unreserved characters and '/' (for hrefs and Location).
std::string encode_path(std::string_view s);

// The entries of the directory DIR_FD (not consumed), in page order: reports newest first (by
// the start their report.json gives, else by its file time: a copied report keeps its
// recording's time), then directories, then files, each by name. Empty if it cannot be read.
std::vector<ListingEntry> list_directory(int dir_fd);

// The HTML page for URL_PATH ("/a/b/", as requested) listing ENTRIES: a table of the reports
// (a column only where some report has a value, a filter box over their rows), then the other
// entries; a section with nothing in it is left out.
std::string index_page(const std::string& url_path, const std::vector<ListingEntry>& entries);

}  // namespace hearth::serve
