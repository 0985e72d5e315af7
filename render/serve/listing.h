// The page `hearth serve` shows for a directory without an index.html: the reports below it
// (subdirectories with an index.html, newest first), then its other directories and files.
// Hidden names (starting with '.') and anything but directories and regular files are left out.
#pragma once

#include <sys/types.h>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::serve {

struct ListingEntry {
  std::string name;
  bool is_report = false;  // a directory with an index.html
  bool is_dir = false;
  time_t mtime = 0;  // reports: of report.json, else of index.html
  off_t size = 0;    // bytes
};

// Percent-encodes everything but unreserved characters and '/' (for hrefs and Location).
std::string encode_path(std::string_view s);

// The entries of the directory DIR_FD (not consumed), in page order: reports newest first,
// then directories, then files, each by name. Empty if it cannot be read.
std::vector<ListingEntry> list_directory(int dir_fd);

// The HTML page for URL_PATH ("/a/b/", as requested) listing ENTRIES.
std::string index_page(const std::string& url_path, const std::vector<ListingEntry>& entries);

}  // namespace hearth::serve
