// Where `hearth push` sends, and as whom: the server's URL, the tenant, the credentials. The
// secrets come from files (never the command line, where `ps` shows them to every user).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth::push {

struct Endpoint {
  bool https = false;
  std::string host;  // a name, an IPv4 address, or an IPv6 address without its brackets
  int port = 0;      // given, or 80 / 443
  std::string path;  // the ingest path: the URL's path + "/ingest" ("/ingest" alone by default)
};

// http[s]://HOST[:PORT][/PREFIX][/ingest]. A path that does not end in /ingest gets it added
// (a server behind a prefix: https://gw/pyroscope → /pyroscope/ingest). Refused: other schemes,
// credentials in the URL (user:password@: use --basic-auth-file), a query or a fragment.
Result<Endpoint> parse_endpoint(std::string_view url);
// The endpoint as a URL again, normalised: "https://host:443/ingest" ([v6] bracketed). Spooled
// profiles are kept under this (and the tenant), so a later push to the same server finds them.
std::string endpoint_url(const Endpoint& endpoint);

// A tenant id as Pyroscope (and the Grafana stack's X-Scope-OrgID) takes it: 1-150 of letters,
// digits and ! - _ . * ' ( ), not "." or "..".
Result<void> check_tenant(std::string_view tenant);

struct Credentials {
  enum class Kind : uint8_t { kNone, kBearer, kBasic } kind = Kind::kNone;
  std::string token;     // kBearer
  std::string user;      // kBasic
  std::string password;  // kBasic
};
// The token in PATH: its first line, without the line end; a file of one line (a final newline
// is fine) of printable ASCII, at most 16 KiB.
Result<Credentials> read_bearer_token_file(const std::string& path);
// USER:PASSWORD in PATH (as curl's --user takes it), on one line; the user has no ':'.
Result<Credentials> read_basic_auth_file(const std::string& path);

}  // namespace hearth::push
