#include "render/serve/access.h"

#include "render/serve/listing.h"

#include "common/url.h"

namespace hearth::serve {
namespace {

// Percent-encodes everything but unreserved characters (a query name or value).
std::string encode_component(std::string_view s) {
  return percent_encode(s);
}

}  // namespace

bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string cookie_value(std::string_view header, std::string_view name) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string_view::npos) end = header.size();
    std::string_view item = header.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.size() > name.size() && item.starts_with(name) && item[name.size()] == '=')
      return std::string(item.substr(name.size() + 1));
    pos = end + 1;
  }
  return {};
}

std::string location_without_param(const std::string& rel, bool trailing_slash,
                                   const std::multimap<std::string, std::string>& params,
                                   std::string_view name) {
  std::string out = "/";  // (not "/" + ...: a g++ 12 -Wrestrict false positive)
  out += encode_path(rel);
  if (!rel.empty() && trailing_slash) out += '/';
  char sep = '?';
  for (const auto& [key, value] : params) {
    if (key == name) continue;
    out += sep;
    out += encode_component(key);
    out += '=';
    out += encode_component(value);
    sep = '&';
  }
  return out;
}

std::string log_line(std::string_view method, std::string_view path, int status,
                     std::string_view bytes, std::string_view secret) {
  std::string shown;
  for (size_t i = 0; i < path.size();) {
    if (!secret.empty() && path.substr(i, secret.size()) == secret) {
      shown += "[token]";
      i += secret.size();
      continue;
    }
    auto u = static_cast<unsigned char>(path[i++]);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += "\\x";
      shown += kHex[u >> 4];
      shown += kHex[u & 15];
    } else {
      shown += static_cast<char>(u);
    }
  }
  std::string line(method);
  line += ' ';
  line += shown;
  line += ' ' + std::to_string(status) + ' ';
  line += bytes;
  return line;
}

}  // namespace hearth::serve
