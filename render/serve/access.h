// Who may read, with `hearth serve --token`, and keeping the token out of places it does not
// belong: the address bar and history (a `?token=` is traded for a cookie and a redirect to the
// same address without it) and the request log.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace hearth::serve {

// The token's cookie: HttpOnly, SameSite=Lax, for the whole site.
inline constexpr const char* kTokenCookie = "hearth_token";

// Constant time in the contents (the length of the token is not a secret worth hiding).
bool same_secret(std::string_view a, std::string_view b);

// The value of cookie NAME in a Cookie field ("a=1; hearth_token=x" → "x"), empty if absent.
std::string cookie_value(std::string_view header, std::string_view name);

// Where to send a browser that arrived with ?token=: "/" + REL (a normalized request path,
// see safe_path.h; "" for the root) + "/" if the request path ended with one, then the query
// PARAMS (as httplib decoded them, in its order) without any parameter named NAME, encoded
// again. Always a path on this server (never "//host"): "/a/b/?x=1".
std::string location_without_param(const std::string& rel, bool trailing_slash,
                                   const std::multimap<std::string, std::string>& params,
                                   std::string_view name);

// The request log line: "GET /a/b.svg 200 1234". Every occurrence of SECRET (when not empty) in
// the path is replaced by "[token]" and control bytes are escaped (\xNN), so a log line never
// shows the token nor a forged second line.
std::string log_line(std::string_view method, std::string_view path, int status,
                     std::string_view bytes, std::string_view secret);

}  // namespace hearth::serve
