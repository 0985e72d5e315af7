#include "push/endpoint.h"

#include <charconv>

#include "common/file_io.h"

namespace hearth::push {
namespace {

// The secret in PATH (one line, printable ASCII), for WHAT ("bearer token").
Result<std::string> read_secret_line(const std::string& path, const char* what) {
  auto text = read_file(path);
  if (!text) return fail(text.error().message, text.error().errnum);
  if (text->size() > 16384) return fail(path + ": longer than 16 KiB: not a " + what + " file");
  std::string line = *text;
  if (line.ends_with("\r\n")) {
    line.resize(line.size() - 2);
  } else if (line.ends_with('\n')) {
    line.pop_back();
  }
  if (line.empty()) return fail(path + ": empty: no " + what);
  for (char c : line) {
    if (c == '\n') return fail(path + ": more than one line: a " + what + " file holds one");
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
      return fail(path + ": holds a character that is not printable ASCII");
    }
  }
  return line;
}

}  // namespace

Result<Endpoint> parse_endpoint(std::string_view url) {
  Endpoint e;
  const std::string u(url);
  if (url.starts_with("https://")) {
    e.https = true;
    url.remove_prefix(8);
  } else if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else {
    return fail(u + ": the server's URL starts with http:// or https://");
  }
  if (url.find_first_of("?#") != std::string_view::npos) {
    return fail(u + ": the URL has a query or a fragment: give the server's address only");
  }
  size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : url.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    return fail(u + ": credentials in the URL would show in ps: use --basic-auth-file");
  }
  std::string_view port;
  if (authority.starts_with('[')) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(u + ": an IPv6 address without its ]");
    e.host = std::string(authority.substr(1, close - 1));
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return fail(u + ": text after the IPv6 address");
      port = rest.substr(1);
    }
    if (e.host.empty() || e.host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos)
      return fail(u + ": not an IPv6 address between [ ]");
  } else {
    size_t colon = authority.rfind(':');
    e.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    for (char c : e.host) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_';
      if (!ok) return fail(u + ": the host name holds '" + std::string(1, c) + "'");
    }
  }
  if (e.host.empty()) return fail(u + ": no host");
  e.port = e.https ? 443 : 80;
  if (!port.empty() || authority.ends_with(':')) {
    int p = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p < 1 ||
        p > 65535) {
      return fail(u + ": the port is not a number from 1 to 65535");
    }
    e.port = p;
  }
  while (path.ends_with('/')) path.remove_suffix(1);
  for (char c : path) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f ||
        c == '\\') {
      return fail(u + ": the path holds a blank, a control or a non-ASCII character");
    }
  }
  e.path = std::string(path);
  if (!e.path.ends_with("/ingest")) e.path += "/ingest";
  return e;
}

std::string endpoint_url(const Endpoint& e) {
  const bool v6 = e.host.find(':') != std::string::npos;
  return std::string(e.https ? "https://" : "http://") + (v6 ? "[" : "") + e.host +
         (v6 ? "]" : "") + ":" + std::to_string(e.port) + e.path;
}

Result<void> check_tenant(std::string_view tenant) {
  if (tenant.empty()) return fail("the tenant is empty");
  if (tenant.size() > 150) return fail("the tenant is longer than 150 characters");
  if (tenant == "." || tenant == "..") return fail("the tenant cannot be . or ..");
  for (char c : tenant) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("!-_.*'()").find(c) != std::string_view::npos;
    if (!ok) {
      return fail("tenant " + std::string(tenant) + ": only letters, digits and ! - _ . * ' ( ) " +
                  "may be used");
    }
  }
  return {};
}

Result<Credentials> read_bearer_token_file(const std::string& path) {
  ASSIGN_OR_RETURN(std::string token, read_secret_line(path, "bearer token"));
  if (token.find(' ') != std::string::npos) return fail(path + ": a bearer token has no blank");
  Credentials c;
  c.kind = Credentials::Kind::kBearer;
  c.token = std::move(token);
  return c;
}

Result<Credentials> read_basic_auth_file(const std::string& path) {
  ASSIGN_OR_RETURN(std::string line, read_secret_line(path, "USER:PASSWORD"));
  size_t colon = line.find(':');
  if (colon == std::string::npos || colon == 0) {
    return fail(path + ": give USER:PASSWORD on one line");
  }
  Credentials c;
  c.kind = Credentials::Kind::kBasic;
  c.user = line.substr(0, colon);
  c.password = line.substr(colon + 1);
  return c;
}

}  // namespace hearth::push
